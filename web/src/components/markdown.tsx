import { type Token, type Tokens, lexer } from 'marked';
import type { ComponentChildren } from 'preact';

/**
 * Markdown (community reports, answers) rendered as elements, never as HTML: an LLM wrote the text, so raw HTML in
 * it is shown as text and only http(s) links become links.
 */
export function Markdown({ text, renderText = plainText }: { text: string; renderText?: TextRenderer }) {
  return <div class="markdown">{blocks(lexer(text), renderText)}</div>;
}

/** How the plain text inside the markdown is shown (e.g. with `[Data: …]` references made links). */
export type TextRenderer = (text: string) => ComponentChildren;

const plainText: TextRenderer = (text) => text;

function blocks(tokens: readonly Token[], text: TextRenderer): ComponentChildren[] {
  return tokens.map((token) => block(token, text));
}

function block(token: Token, render: TextRenderer): ComponentChildren {
  switch (token.type) {
    case 'heading': {
      const { depth, tokens } = token as Tokens.Heading;
      const Tag = `h${Math.min(6, depth + 2)}` as 'h3';
      return <Tag>{inline(tokens, render)}</Tag>;
    }
    case 'paragraph':
      return <p>{inline((token as Tokens.Paragraph).tokens, render)}</p>;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item) => <li>{blocks(item.tokens, render)}</li>);
      return list.ordered ? <ol>{items}</ol> : <ul>{items}</ul>;
    }
    case 'blockquote':
      return <blockquote>{blocks((token as Tokens.Blockquote).tokens, render)}</blockquote>;
    case 'code':
      return (
        <pre>
          <code>{(token as Tokens.Code).text}</code>
        </pre>
      );
    case 'table': {
      const table = token as Tokens.Table;
      return (
        <table>
          <thead>
            <tr>{table.header.map((cell) => <th>{inline(cell.tokens, render)}</th>)}</tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr>{row.map((cell) => <td>{inline(cell.tokens, render)}</td>)}</tr>
            ))}
          </tbody>
        </table>
      );
    }
    case 'hr':
      return <hr />;
    case 'space':
      return null;
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? <p>{inline(text.tokens, render)}</p> : <p>{render(decodeEntities(text.text))}</p>;
    }
    default:
      return 'raw' in token ? <p>{render(token.raw)}</p> : null;
  }
}

function inline(tokens: readonly Token[] | undefined, render: TextRenderer): ComponentChildren[] {
  return (tokens ?? []).map((token) => {
    switch (token.type) {
      case 'strong':
        return <strong>{inline((token as Tokens.Strong).tokens, render)}</strong>;
      case 'em':
        return <em>{inline((token as Tokens.Em).tokens, render)}</em>;
      case 'codespan':
        return <code>{(token as Tokens.Codespan).text}</code>;
      case 'del':
        return <del>{inline((token as Tokens.Del).tokens, render)}</del>;
      case 'br':
        return <br />;
      case 'link': {
        const link = token as Tokens.Link;
        return /^https?:\/\//i.test(link.href) ? (
          <a href={link.href} target="_blank" rel="noopener noreferrer">
            {inline(link.tokens, render)}
          </a>
        ) : (
          inline(link.tokens, render)
        );
      }
      case 'text': {
        const text = token as Tokens.Text;
        return text.tokens ? inline(text.tokens, render) : render(decodeEntities(text.text));
      }
      case 'escape':
        return (token as Tokens.Escape).text;
      default:
        return token.raw;
    }
  });
}

/** marked escapes `&`, `<`, `>` and quotes in text tokens for HTML output; shown as text, they are decoded back. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_match, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '');
}
