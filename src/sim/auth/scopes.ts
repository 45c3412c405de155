/**
 * API key scopes (spec/interface-spec.md, Authentication 1) and what each route needs. `read` and
 * `write` are parent scopes; `write::trade` covers order and order-group writes without transfers.
 * This file owns the predicate only; it never sees a request.
 */

export type Scope =
  | 'read'
  | 'write'
  | 'write::trade'
  | 'write::transfer'
  | 'read::block_trade_accept'
  | 'write::block_trade_accept'
  | 'read::portfolio_balance';

export const SCOPES: readonly Scope[] = [
  'read',
  'write',
  'write::trade',
  'write::transfer',
  'read::block_trade_accept',
  'write::block_trade_accept',
  'read::portfolio_balance',
];

/** What a route demands of the key that signed it. */
export type ScopeNeed = 'none' | 'read' | 'trade' | 'balance' | 'write' | 'transfer' | 'block_trade_read' | 'block_trade_write';

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/**
 * Whether `scopes` satisfy `need`. Reads need `read`; order and order-group writes need `write` or
 * `write::trade`; the balance read also accepts the narrow `read::portfolio_balance`; transfers
 * need `write` or `write::transfer`; block-trade reads and accepts their own child scopes (or the parent).
 */
export function scopesAllow(scopes: ReadonlySet<Scope>, need: ScopeNeed): boolean {
  switch (need) {
    case 'none':
      return true;
    case 'read':
      return scopes.has('read');
    case 'trade':
      return scopes.has('write') || scopes.has('write::trade');
    case 'balance':
      return scopes.has('read') || scopes.has('read::portfolio_balance');
    case 'write': // account administration (API keys): only the broad parent scope
      return scopes.has('write');
    case 'transfer': // transfers between subaccounts and exchange instances; write::trade excludes them
      return scopes.has('write') || scopes.has('write::transfer');
    case 'block_trade_read':
      return scopes.has('read') || scopes.has('read::block_trade_accept');
    case 'block_trade_write':
      return scopes.has('write') || scopes.has('write::block_trade_accept');
  }
}
