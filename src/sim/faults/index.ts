/**
 * Public surface of the simulator's fault injection: rules, named profiles and the controller
 * tests drive at run time (README "Faults").
 */

export { FaultController, type FaultRuleInfo, type FixActionFilter, type FixFaultActuator, type FixFaultDecision, type FixFaultPoint, type RestFaultDecision, type RestFaultQuery, type WsActionFilter, type WsFaultActuator, type WsFaultDecision } from './fault-controller.ts';
export { FAULT_PROFILES, faultProfileNames } from './fault-profiles.ts';
export { FaultRuleError, FIX_FAULT_KINDS, REST_FAULT_KINDS, WS_FAULT_KINDS, isFixFault, validateFaultRule, type FaultKind, type FixFaultKind, type FaultRule, type FaultTarget, type RestFaultKind, type WsFaultKind } from './fault-rule.ts';
