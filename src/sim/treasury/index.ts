/** Transfers, subaccounts and target balance allocation (treasury.ts). */
export {
  Treasury,
  DEFAULT_ALLOCATION,
  TRANSFER_RECORDS_PER_USER_MAX,
  type ExchangeInstance,
  type Place,
  type IntraTransferRecord,
  type SubaccountTransferRecord,
  type RestingMarginReservation,
  type TargetAllocation,
  type StepFailure,
} from './treasury.ts';
