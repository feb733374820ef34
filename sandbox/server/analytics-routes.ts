/**
 * The analytics routes: one endpoint module per route over the shared data
 * (endpoints/registry.ts), and what every analytics request goes through after auth — the
 * request budget (429), the project (404), the module's validation (400), then the next
 * matching fault or the normal page (in drift mode when asked). Kinds every route answers
 * alike are answered by fault-answers.ts, `repeat-page` here from the last normal page
 * served, the rest by the endpoint module.
 */
import { badRequest, type AnalyticsEndpoint } from '../endpoints/endpoint.js';
import { createEndpoints } from '../endpoints/registry.js';
import { driftBody } from './drift.js';
import { answerCommonFault } from './fault-answers.js';
import type { Exchange } from './http.js';
import type { AnalyticsRoute } from './routes.js';
import type { SandboxState } from './state.js';

export class AnalyticsRoutes {
  private readonly endpoints: Readonly<Record<AnalyticsRoute, AnalyticsEndpoint>>;
  /** The last normal page body per route and project, for `repeat-page`. */
  private readonly lastPages = new Map<string, string>();

  constructor(private readonly state: SandboxState) {
    this.endpoints = createEndpoints(state.data);
  }

  /** Answers an authenticated request to an analytics route. */
  async answer(route: AnalyticsRoute, projectId: string, params: URLSearchParams, exchange: Exchange): Promise<void> {
    const { budget, data, faults, clock } = this.state;
    const { entry, send } = exchange;
    const refused = budget.take();
    if (refused) {
      entry.overBudget = true;
      return send(refused);
    }
    if (!data.hasProject(projectId)) {
      return send({ status: 404, body: { error: `project ${projectId} not found: check the project id on the API keys page` } });
    }
    const prepared = this.endpoints[route].prepare(projectId, params, clock.now());
    if (!prepared.ok) return send(badRequest(prepared.error, prepared.messages));
    const request = prepared.value;
    const pageKey = `${route}\u0000${projectId}`;
    const rule = faults.take({
      route,
      projectId,
      ...(request.offset !== undefined ? { offset: request.offset } : {}),
      ...(request.hasCursor !== undefined ? { hasCursor: request.hasCursor } : {}),
    });
    const page = (): unknown => (this.state.drift || rule?.kind === 'drift' ? driftBody(route, request.page()) : request.page());
    if (!rule || rule.kind === 'drift') {
      const body = page();
      this.lastPages.set(pageKey, JSON.stringify(body));
      if (rule) entry.fault = rule.kind;
      return send({ status: 200, body });
    }
    entry.fault = rule.kind;
    if (await answerCommonFault(rule, () => ({ status: 200, body: page() }), exchange, this.state)) return;
    const body = page();
    if (rule.kind === 'repeat-page') {
      const previous = this.lastPages.get(pageKey);
      return send({ status: 200, body: previous === undefined ? body : JSON.parse(previous) });
    }
    return send(request.fault(rule, body) ?? { status: 200, body });
  }
}
