import { describe, test } from 'node:test';
import { storeContractCases, type StoreContractOptions } from './store-contract.js';

/** Registers the store contract's cases (`storeContractCases`) as node:test tests of one suite named after the backend. */
export function describeStoreContract(backend: string, options: StoreContractOptions): void {
  describe(`Store contract: ${backend}`, () => {
    for (const { name, run } of storeContractCases(options)) test(name, run);
  });
}
