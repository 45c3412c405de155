/**
 * Portfolio risk off the event loop: the arithmetic (worst-case loss and exposure per subaccount
 * and per event), the piscina task, and the publisher that keeps the gate's snapshot current.
 */

export { PortfolioInput, ROW_STRIDE, Row, computePortfolioRisk, inputOffsets, portfolioInputLength } from './portfolio-risk.ts';
export { runPortfolioTask, type PortfolioTaskInput, type PortfolioTaskOutput } from './portfolio-task.ts';
export { PortfolioPublisherStats, PortfolioRiskPublisher, type PortfolioLedger, type PortfolioPublisherOptions } from './portfolio-publisher.ts';
