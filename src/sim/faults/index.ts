/**
 * Public surface of the simulator's fault injection: rules, named profiles and the controller
 * tests drive at run time (README "Faults").
 */

export { FaultController, type FaultRuleInfo, type RestFaultDecision, type RestFaultQuery, type WsActionFilter, type WsFaultActuator, type WsFaultDecision } from './fault-controller.ts';
export { FAULT_PROFILES, faultProfileNames } from './fault-profiles.ts';
export { FaultRuleError, REST_FAULT_KINDS, WS_FAULT_KINDS, validateFaultRule, type FaultKind, type FaultRule, type FaultTarget, type RestFaultKind, type WsFaultKind } from './fault-rule.ts';
