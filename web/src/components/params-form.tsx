import type { JsonSchema } from '../api-types';

/** Parameter values by dotted path (`graph`, `search.k`): only the ones the user changed. */
export type ChangedParams = Readonly<Record<string, unknown>>;

interface Props {
  schema: JsonSchema;
  values: ChangedParams;
  onChange(values: ChangedParams): void;
}

/** The nested `params` object a query sends, from the changed values by path. */
export function nestParams(values: ChangedParams): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(values)) {
    const keys = path.split('.');
    let target = params;
    keys.slice(0, -1).forEach((key) => {
      const next = target[key];
      target = (typeof next === 'object' && next !== null ? next : (target[key] = {})) as Record<string, unknown>;
    });
    target[keys[keys.length - 1] as string] = value;
  }
  return params;
}

function typeOf(schema: JsonSchema): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const type = types.find((candidate) => candidate !== 'null');
  if (type) return type;
  if (schema.enum) return 'enum';
  const option = (schema.anyOf ?? schema.oneOf)?.find((candidate) => typeOf(candidate) !== undefined && candidate.type !== 'null');
  return option && typeOf(option);
}

const shown = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A form generated from a method's parameters JSON Schema: numbers with their bounds and the default as
 * placeholder, booleans, enum selects, strings, lists (checkboxes for enum items, comma-separated otherwise) and
 * nested objects as fieldsets. Only values that differ from the default are kept.
 */
export function ParamsForm({ schema, values, onChange }: Props) {
  const set = (path: string, value: unknown, fallback: unknown) => {
    const next = { ...values };
    if (value === undefined || JSON.stringify(value) === JSON.stringify(fallback)) delete next[path];
    else next[path] = value;
    onChange(next);
  };
  return (
    <div class="params-form" data-testid="params-form">
      <Fields schema={schema} path="" values={values} set={set} />
      {Object.keys(values).length > 0 && (
        <button type="button" class="link small" data-testid="params-reset" onClick={() => onChange({})}>
          Reset {Object.keys(values).length} changed
        </button>
      )}
    </div>
  );
}

interface FieldsProps {
  schema: JsonSchema;
  path: string;
  values: ChangedParams;
  set(path: string, value: unknown, fallback: unknown): void;
}

function Fields({ schema, path, values, set }: FieldsProps) {
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, property]) => {
        const full = path ? `${path}.${name}` : name;
        if (typeOf(property) === 'object' && property.properties) {
          return (
            <fieldset>
              <legend title={property.description}>{name}</legend>
              <Fields schema={property} path={full} values={values} set={set} />
            </fieldset>
          );
        }
        return <Field name={name} path={full} schema={property} value={values[full]} set={set} />;
      })}
    </>
  );
}

interface FieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  value: unknown;
  set(path: string, value: unknown, fallback: unknown): void;
}

function Field({ name, path, schema, value, set }: FieldProps) {
  const type = typeOf(schema);
  const changed = value !== undefined;
  const label = (
    <span class="param-name" title={schema.description}>
      {name}
      {changed ? ' •' : ''}
    </span>
  );
  const common = { 'data-param': path, title: schema.description };
  if (schema.enum && type !== 'array') {
    return (
      <label class="param">
        {label}
        <select {...common} value={changed ? shown(value) : ''} onChange={(event) => {
          const raw = event.currentTarget.value;
          set(path, raw === '' ? undefined : schema.enum?.find((option) => shown(option) === raw), schema.default);
        }}>
          <option value="">default{schema.default === undefined ? '' : ` (${shown(schema.default)})`}</option>
          {schema.enum.map((option) => (
            <option value={shown(option)}>{shown(option)}</option>
          ))}
        </select>
      </label>
    );
  }
  if (type === 'boolean') {
    const fallback = schema.default === true;
    return (
      <label class="param param-boolean">
        <input type="checkbox" {...common} checked={changed ? value === true : fallback} onChange={(event) => set(path, event.currentTarget.checked, fallback)} />
        {label}
      </label>
    );
  }
  if (type === 'number' || type === 'integer') {
    const min = schema.minimum ?? schema.exclusiveMinimum;
    const max = schema.maximum ?? schema.exclusiveMaximum;
    return (
      <label class="param">
        {label}
        <input
          type="number"
          {...common}
          step={type === 'integer' ? 1 : 'any'}
          {...(min === undefined ? {} : { min })}
          {...(max === undefined || max > 1e12 ? {} : { max })}
          placeholder={shown(schema.default)}
          value={changed ? String(value) : ''}
          onInput={(event) => {
            const raw = event.currentTarget.value;
            const number = Number(raw);
            set(path, raw === '' || !Number.isFinite(number) ? undefined : number, schema.default);
          }}
        />
      </label>
    );
  }
  if (type === 'array') {
    const items = schema.items?.enum;
    const current = Array.isArray(value) ? value : Array.isArray(schema.default) ? schema.default : [];
    if (items) {
      return (
        <fieldset class="param-list" {...common}>
          <legend title={schema.description}>{name}{changed ? ' •' : ''}</legend>
          {items.map((item) => (
            <label>
              <input
                type="checkbox"
                checked={current.includes(item)}
                onChange={(event) => {
                  const next = event.currentTarget.checked ? [...current, item] : current.filter((entry) => entry !== item);
                  set(path, items.filter((entry) => next.includes(entry)), schema.default);
                }}
              />
              {shown(item)}
            </label>
          ))}
        </fieldset>
      );
    }
    const numeric = schema.items !== undefined && ['number', 'integer'].includes(typeOf(schema.items) ?? '');
    return (
      <label class="param">
        {label}
        <input
          type="text"
          {...common}
          placeholder={Array.isArray(schema.default) ? schema.default.map(shown).join(', ') : 'comma-separated'}
          value={changed && Array.isArray(value) ? value.map(shown).join(', ') : ''}
          onChange={(event) => {
            const raw = event.currentTarget.value.trim();
            const list = raw === '' ? undefined : raw.split(',').map((entry) => (numeric ? Number(entry.trim()) : entry.trim()));
            set(path, list, schema.default);
          }}
        />
      </label>
    );
  }
  return (
    <label class="param">
      {label}
      <input type="text" {...common} placeholder={shown(schema.default)} value={changed ? shown(value) : ''} onInput={(event) => {
        const raw = event.currentTarget.value;
        set(path, raw === '' ? undefined : raw, schema.default);
      }} />
    </label>
  );
}
