/**
 * The agent routes (`GET /v2/agent/{projectId}/job/{jobId}`, `POST …/message`, and the job
 * creation `POST /v2/agent/{projectId}/job`) over the sandbox's `AgentStore`: after auth, the
 * prompt's validation (400), then the next matching fault or the store's answer (in drift mode
 * when asked). Kinds every route answers alike are answered by server/fault-answers.ts (429, 400 through
 * `status`, `slow`, `drop`…); `drop-after-accept` (the job IS created, the answer is lost) and
 * `wrong-types` here. A slow job is scripted: `AgentStore.scriptNextRun(projectId,
 * NEXT_CREATED_JOB, {activeMs})`.
 */
import * as v from 'valibot';
import type { AgentResponse } from './agent.js';
import { driftBody } from './server/drift.js';
import { answerCommonFault } from './server/fault-answers.js';
import type { Answer, Exchange } from './server/http.js';
import type { AgentRoute } from './server/routes.js';
import type { SandboxState } from './server/state.js';

const PromptBody = v.object({ prompt: v.pipe(v.string(), v.minLength(1)) });

/** Answers an authenticated request to an agent route; `rawBody` is the request's body. */
export async function answerAgent(
  state: SandboxState,
  route: AgentRoute,
  projectId: string,
  jobId: string | undefined,
  rawBody: string,
  exchange: Exchange,
): Promise<void> {
  const { agent, faults } = state;
  const { entry, send } = exchange;
  let prompt = '';
  if (route !== 'agent-get') {
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      return send({ status: 400, body: { error: 'request body must be JSON: {"prompt": "<text>"}' } });
    }
    const parsed = v.safeParse(PromptBody, json);
    if (!parsed.success) return send({ status: 400, body: { error: 'prompt is required and must be a non-empty string' } });
    prompt = parsed.output.prompt;
  }
  const act = (): AgentResponse =>
    route === 'agent-create' || jobId === undefined
      ? agent.create(projectId, prompt)
      : route === 'agent-message'
        ? agent.send(projectId, jobId, prompt)
        : agent.get(projectId, jobId);
  const rule = faults.take({ route, projectId });
  const drifting = state.drift || rule?.kind === 'drift';
  const toAnswer = (response: AgentResponse): Answer => ({
    status: response.status,
    body: drifting && response.status === 200 ? driftBody(route, response.body) : response.body,
    ...(response.headers ? { headers: { ...response.headers } } : {}),
  });
  if (!rule || rule.kind === 'drift') {
    if (rule) entry.fault = rule.kind;
    return send(toAnswer(act()));
  }
  entry.fault = rule.kind;
  if (await answerCommonFault(rule, () => toAnswer(act()), exchange, state)) return;
  const response = act();
  if (rule.kind === 'drop-after-accept' && response.accepted) return exchange.drop();
  if (rule.kind === 'wrong-types' && route === 'agent-create' && response.status === 201 && 'id' in response.body) {
    // The job IS created, but the answer does not name it (the spec marks no field required).
    const { id: _created, ...withoutId } = response.body;
    return send({ status: 201, body: withoutId });
  }
  if (rule.kind === 'wrong-types' && response.status === 200) {
    return send({ status: 200, body: { ...response.body, status: 17, prLink: 12_345 } });
  }
  return send(toAnswer(response));
}
