// A run as a timeline, built one envelope at a time: a lane per agent (the envelope's `path`), blocks of
// activity in each lane (one per model turn), tool calls with their arguments and results, handoffs between
// lanes and agent-as-tool sub-runs attached to the call that started them. Pure data: no DOM, no network.

import { describeError, formatOffset } from "./format.js";

const TERMINAL = new Set(["run_completed", "run_failed", "run_paused"]);
/** Events that only say which agent is active (the envelope's path says it too): they open no block. */
const STRUCTURAL = new Set(["run_started", "agent_updated"]);

/** The key of the lane of `path` (agent names from the top-level agent down): its JSON, so names never collide. */
export function laneKey(path) {
  return JSON.stringify(path);
}

/** A path for people: "research › a". */
export function pathWords(path) {
  return path.join(" › ");
}

export class Timeline {
  constructor() {
    this.lanes = new Map();
    this.blocks = [];
    this.handoffs = [];
    this.usageByAgent = new Map();
    this.outcome = null;
    this.totalUsage = null;
    this.lastBlock = null;
    this.seen = new Set();
  }

  /** Add one envelope; false (and nothing changes) when its position was seen before. */
  apply(envelope) {
    if (this.seen.has(envelope.position)) return false;
    this.seen.add(envelope.position);
    const lane = this.laneFor(envelope);
    this.resolveHandoffs(lane);
    const type = envelope.event.type;
    if (type === "run_started" && lane.call === null) this.markResumed(envelope);
    if (STRUCTURAL.has(type)) return true;
    if (!TERMINAL.has(type)) lane.status = "running";
    // A run's end is told where its last activity was (the top-level run's terminal carries the top's path).
    const block = TERMINAL.has(type) && this.lastBlock !== null ? this.lastBlock : this.blockFor(lane, envelope);
    const handle = HANDLERS[type];
    if (handle) handle({ timeline: this, lane, block, event: envelope.event, envelope });
    block.end = envelope.position;
    block.endMs = envelope.at_ms;
    this.lastBlock = block;
    return true;
  }

  /** A second start of the run is its resumption (after a pause or a dead server): say so where it stopped. */
  markResumed(envelope) {
    if (this.lastBlock === null) return;
    note(this.lastBlock, "info", `resumed at ${formatOffset(envelope.at_ms)}`);
    this.lastBlock.end = envelope.position;
  }

  /** The blocks with something to show (a block may only have updated a call shown in an earlier one). */
  shownBlocks() {
    return this.blocks.filter((block) => block.entries.length > 0);
  }

  /** Lanes in display order: each lane followed by the lanes below it (sub-runs, workflow children). */
  orderedLanes() {
    const byParent = new Map();
    for (const lane of this.lanes.values()) {
      const siblings = byParent.get(lane.parentKey) ?? [];
      siblings.push(lane);
      byParent.set(lane.parentKey, siblings);
    }
    const ordered = [];
    const visit = (parentKey) => {
      for (const lane of byParent.get(parentKey) ?? []) {
        ordered.push(lane);
        visit(lane.key);
      }
    };
    visit(null);
    return ordered;
  }

  /** The usage to show for `lane`: the run's split by agent when known, else the lane's own terminal usage. */
  usageOf(lane) {
    return this.usageByAgent.get(lane.agent) ?? lane.usage;
  }

  laneFor(envelope) {
    const path = envelope.path.length ? envelope.path : ["(run)"];
    const key = laneKey(path);
    const known = this.lanes.get(key);
    if (known) return known;
    const lane = newLane(key, path, this.lanes.size, envelope.position);
    lane.parentKey = this.parentKeyOf(path);
    this.lanes.set(key, lane);
    this.attachLane(lane);
    return lane;
  }

  parentKeyOf(path) {
    for (let depth = path.length - 1; depth > 0; depth -= 1) {
      const key = laneKey(path.slice(0, depth));
      if (this.lanes.has(key)) return key;
    }
    return null;
  }

  /** The handoffs to `lane`'s agent still looking for their target find it in `lane`, where it speaks next. */
  resolveHandoffs(lane) {
    for (const handoff of this.handoffs) {
      if (handoff.toLane === null && handoff.toAgent === lane.agent) handoff.toLane = lane.key;
    }
  }

  /** A new lane is a handoff's target, an agent-as-tool sub-run of an open call, or a workflow child. */
  attachLane(lane) {
    if (this.handoffs.some((handoff) => handoff.toLane === null && handoff.toAgent === lane.agent)) return;
    const parent = this.lanes.get(lane.parentKey);
    const call = parent ? callingCall(parent, lane.agent) : null;
    if (call) {
      call.subLanes.push(lane.key);
      lane.call = { laneKey: parent.key, callId: call.id, name: call.name };
    }
  }

  blockFor(lane, envelope) {
    if (lane.current === null || envelope.event.type === "turn_started") {
      lane.current = {
        id: this.blocks.length,
        laneKey: lane.key,
        turn: null,
        start: envelope.position,
        end: envelope.position,
        startMs: envelope.at_ms,
        endMs: envelope.at_ms,
        entries: [],
      };
      this.blocks.push(lane.current);
    }
    return lane.current;
  }
}

function newLane(key, path, order, position) {
  return {
    key,
    path,
    agent: path[path.length - 1],
    depth: path.length - 1,
    order,
    firstPosition: position,
    parentKey: null,
    call: null,
    status: "running",
    error: null,
    usage: null,
    turns: 0,
    current: null,
    calls: new Map(),
  };
}

/** The call of `lane` that a sub-run of `agent` belongs to: an open call named after it, else the last open one. */
function callingCall(lane, agent) {
  const open = [...lane.calls.values()].filter((call) => call.status !== "done" && call.status !== "denied");
  return open.find((call) => call.name === agent) ?? open[open.length - 1] ?? null;
}

function callOf(lane, block, callId, name = null) {
  let call = lane.calls.get(callId);
  if (!call) {
    call = { id: callId, name, args: "", result: null, isError: false, status: "requested", subLanes: [] };
    call.notes = [];
    lane.calls.set(callId, call);
    block.entries.push({ kind: "call", call });
  }
  if (name && !call.name) call.name = name;
  return call;
}

function appendText(block, kind, text) {
  const last = block.entries[block.entries.length - 1];
  if (last && last.kind === kind) last.text += text;
  else block.entries.push({ kind, text });
}

function note(block, tone, text) {
  block.entries.push({ kind: "note", tone, text });
}

function hasText(block) {
  return block.entries.some((entry) => entry.kind === "text");
}

/** A (sub-)run ended: a sub-run's usage is its lane's; the run's own is the total of every agent. */
function finish({ timeline, lane, event }, status) {
  if (status !== "paused") lane.current = null; // a resumed run goes on with the turn it paused in
  if (lane.call !== null) {
    lane.status = status;
    lane.usage = event.usage ?? lane.usage;
    return;
  }
  settleLanes(timeline, lane, status);
  timeline.outcome = { status, event };
  timeline.totalUsage = event.usage ?? timeline.totalUsage;
  for (const share of event.usage_by_agent ?? []) timeline.usageByAgent.set(share.agent, share.usage);
}

/** A call's result ends the sub-runs it started (whose own ends the stream may not carry). */
function endSubRuns(timeline, call) {
  for (const key of call.subLanes) {
    const lane = timeline.lanes.get(key);
    if (lane.status === "running") lane.status = call.isError ? "failed" : "completed";
  }
}

/**
 * The run ended (or paused): lanes still running take its status, except that only the lane it ended in
 * failed; the others were merely stopped. A sub-run's lane has its own end.
 */
function settleLanes(timeline, ending, status) {
  for (const lane of timeline.lanes.values()) {
    if (lane.status !== "running" || lane.call !== null) continue;
    lane.status = status === "failed" && lane !== ending ? "stopped" : status;
  }
}

const HANDLERS = {
  run_started: () => {},
  turn_started: ({ lane, block, event }) => {
    block.turn = event.turn;
    lane.turns += 1;
  },
  token_delta: ({ block, event }) => appendText(block, "text", event.text),
  reasoning_delta: ({ block, event }) => appendText(block, "reasoning", event.text),
  tool_call_delta: ({ lane, block, event }) => {
    callOf(lane, block, event.call_id, event.name).args += event.args_delta;
  },
  message_output: ({ block, event }) => {
    if (!hasText(block) && event.item.text) appendText(block, "text", event.item.text);
  },
  tool_call_item: ({ lane, block, event }) => {
    const call = callOf(lane, block, event.item.call_id, event.item.name);
    call.args = event.item.arguments;
  },
  tool_output_item: ({ timeline, lane, block, event }) => {
    const call = callOf(lane, block, event.item.call_id);
    call.result = event.item.output;
    call.isError = event.item.is_error;
    if (call.status !== "denied") call.status = "done";
    endSubRuns(timeline, call);
  },
  handoff_item: ({ timeline, lane, block, event, envelope }) => {
    const handoff = { fromLane: lane.key, toAgent: event.to, toLane: null, position: envelope.position };
    timeline.handoffs.push(handoff);
    lane.status = "handed off";
    block.entries.push({ kind: "handoff", handoff });
  },
  agent_updated: () => {},
  guardrail_triggered: ({ block, event }) =>
    note(block, "warn", `guardrail ${event.kind} triggered${event.info === null ? "" : `: ${JSON.stringify(event.info)}`}`),
  approval_requested: ({ lane, block, event }) => {
    const call = callOf(lane, block, event.call_id, event.tool);
    call.status = "waiting";
    call.waitingArgs = event.args;
  },
  permission_denied: ({ lane, block, event }) => {
    if (event.call_id === null) return note(block, "warn", `${event.tool} denied: ${event.reason}`);
    const call = callOf(lane, block, event.call_id, event.tool);
    call.status = "denied";
    call.notes.push(`denied: ${event.reason}`);
  },
  permission_granted: ({ lane, block, event }) => {
    const call = callOf(lane, block, event.call_id, event.tool);
    if (call.status === "waiting" || call.status === "requested") call.status = "allowed";
    if (event.approved) call.notes.push("approved by a person");
    if (event.arguments !== null) call.ranWith = event.arguments;
  },
  repair_started: ({ block }) => note(block, "warn", "the structured output did not fit its schema: one repair turn"),
  structured_output_failed: ({ block, event }) =>
    note(block, "error", `the repaired output did not fit either: ${event.schema_errors.join("; ")}`),
  conversation_compacted: ({ block, event }) =>
    note(
      block,
      "info",
      `conversation compacted: ${event.replaced} items summarised (${event.tokens_before} → ${event.tokens_after} tokens)`,
    ),
  compaction_skipped: ({ block, event }) => note(block, "warn", `compaction skipped: ${event.reason}`),
  run_completed: (context) => finish(context, "completed"),
  run_failed: (context) => {
    context.lane.error = describeError(context.event.error);
    note(context.block, "error", `failed: ${context.lane.error}`);
    finish(context, "failed");
  },
  run_paused: (context) => {
    note(context.block, "info", `paused for ${context.event.pending.length} decision(s)`);
    finish(context, "paused");
  },
};

/** Every event tag the timeline understands (the names of the event stream's messages). */
export const EVENT_TYPES = Object.keys(HANDLERS);

/**
 * Grid rows for the blocks: blocks that overlap in the run's order share rows, so parallel branches and a
 * sub-run beside its call stand side by side. Returns a Map from block id to {rowStart, rowEnd} (1-based lines).
 */
export function layoutRows(blocks) {
  const ticks = [...new Set(blocks.map((block) => block.start))].sort((a, b) => a - b);
  const rows = new Map();
  for (const block of blocks) {
    const rowStart = ticks.indexOf(block.start) + 1;
    const after = ticks.findIndex((tick) => tick > block.end);
    rows.set(block.id, { rowStart, rowEnd: after === -1 ? ticks.length + 1 : after + 1 });
  }
  return rows;
}
