// Drawing a `Timeline`: a grid with one column per lane, blocks placed on rows by when they ran (so blocks
// that overlapped in time stand side by side), and arrows for handoffs and for calls that started sub-runs.

import { el, fill, svg } from "./dom.js";
import { formatDuration, formatOffset, formatUsage, prettyJson } from "./format.js";
import { layoutRows, pathWords } from "./timeline.js";

/** A status as a class name ("handed off" → "status-handed-off"). */
function statusClass(status) {
  return `status-${status.replace(/[^a-z]+/g, "-")}`;
}

/** Draw `timeline` into `container` (replacing what was there). */
export function renderTimeline(container, timeline) {
  const lanes = timeline.orderedLanes();
  if (lanes.length === 0) {
    fill(container, el("p", { class: "empty", text: "No events yet." }));
    return;
  }
  const anchors = { lanes: new Map(), blocks: new Map(), handoffs: [], calls: [] };
  const grid = el("div", { class: "timeline-grid" });
  grid.style.gridTemplateColumns = `repeat(${lanes.length}, minmax(17rem, 1fr))`;
  lanes.forEach((lane, index) => grid.append(laneHeader(timeline, lane, index, anchors)));
  appendBlocks(grid, timeline, lanes, anchors);
  const arrows = svg("svg", { class: "arrows", "aria-hidden": "true" });
  const wrapper = el("div", { class: "timeline-wrapper" }, grid, arrows);
  fill(container, wrapper);
  drawArrows(wrapper, arrows, anchors);
}

function laneHeader(timeline, lane, index, anchors) {
  const header = el(
    "header",
    { class: `lane-header depth-${Math.min(lane.depth, 4)}`, "data-lane": lane.key },
    el("h3", { class: "lane-agent", text: lane.agent }),
    lane.depth > 0 ? el("p", { class: "lane-path", text: pathWords(lane.path) }) : null,
    lane.call ? el("p", { class: "lane-call", text: `sub-run of call ${lane.call.name ?? "?"} (${lane.call.callId})` }) : null,
    el("p", { class: `badge ${statusClass(lane.status)}`, text: lane.status }),
    el("p", { class: "lane-usage", text: laneUsage(timeline, lane) }),
  );
  header.style.gridColumn = String(index + 1);
  header.style.gridRow = "1";
  anchors.lanes.set(lane.key, header);
  return header;
}

function laneUsage(timeline, lane) {
  const usage = timeline.usageOf(lane);
  if (usage) return formatUsage(usage);
  const turns = `${lane.turns} model turn${lane.turns === 1 ? "" : "s"}`;
  return lane.status === "running" ? `${turns} so far` : turns;
}

function appendBlocks(grid, timeline, lanes, anchors) {
  const columns = new Map(lanes.map((lane, index) => [lane.key, index + 1]));
  const blocks = timeline.shownBlocks();
  const rows = layoutRows(blocks);
  for (const block of [...blocks].sort((a, b) => a.start - b.start)) {
    const node = blockView(timeline, block, anchors);
    const { rowStart, rowEnd } = rows.get(block.id);
    node.style.gridColumn = String(columns.get(block.laneKey));
    node.style.gridRow = `${rowStart + 1} / ${rowEnd + 1}`;
    const laneBlocks = anchors.blocks.get(block.laneKey) ?? [];
    laneBlocks.push({ start: block.start, node });
    anchors.blocks.set(block.laneKey, laneBlocks);
    grid.append(node);
  }
}

function blockView(timeline, block, anchors) {
  const lane = timeline.lanes.get(block.laneKey);
  const title = block.turn === null ? lane.agent : `${lane.agent}, turn ${block.turn + 1}`;
  const timing = `${formatOffset(block.startMs)} · ${formatDuration(block.endMs - block.startMs)}`;
  return el(
    "section",
    { class: "block", "aria-label": title, "data-lane": block.laneKey },
    el("p", { class: "block-meta" }, el("span", { text: title }), el("span", { text: timing })),
    block.entries.map((entry) => entryView(entry, anchors)),
  );
}

function entryView(entry, anchors) {
  switch (entry.kind) {
    case "text":
      return el("p", { class: "text", text: entry.text });
    case "reasoning":
      return el("p", { class: "reasoning" }, el("span", { class: "label", text: "reasoning " }), entry.text);
    case "call":
      return callView(entry.call, anchors);
    case "handoff":
      return handoffView(entry.handoff, anchors);
    case "note":
      return el("p", { class: `note tone-${entry.tone}`, text: entry.text });
    default:
      return null;
  }
}

function callView(call, anchors) {
  const subRuns = call.subLanes.map((key) => pathWords(JSON.parse(key)));
  const node = el(
    "div",
    { class: `call status-${call.status}${call.isError ? " is-error" : ""}`, "data-call": call.id },
    el(
      "p",
      { class: "call-head" },
      el("span", { class: "call-name", text: call.name ?? "(tool)" }),
      el("span", { class: "call-id", text: call.id }),
      el("span", { class: `badge status-${call.status}`, text: callStatusWords(call) }),
    ),
    el("p", { class: "label", text: "arguments" }),
    el("pre", { class: "args", text: prettyJson(call.args || "{}") }),
    ranWithOther(call) ? [el("p", { class: "label", text: "ran with" }), el("pre", { class: "args", text: prettyJson(call.ranWith) })] : null,
    call.notes.map((words) => el("p", { class: "call-note", text: words })),
    call.result === null ? null : [el("p", { class: "label", text: call.isError ? "error" : "result" }), el("pre", { class: "result", text: call.result })],
    subRuns.map((words) => el("p", { class: "sub-run", text: `↳ sub-run: ${words}` })),
  );
  for (const key of call.subLanes) anchors.calls.push({ from: node, toLane: key, after: 0 });
  return node;
}

/** Whether the call ran with other arguments than the model's (a policy, hook or person changed them). */
function ranWithOther(call) {
  return Boolean(call.ranWith) && prettyJson(call.ranWith) !== prettyJson(call.args || "{}");
}

function callStatusWords(call) {
  const words = { requested: "called", allowed: "allowed", waiting: "waiting for approval", denied: "denied", done: call.isError ? "error" : "done" };
  return words[call.status] ?? call.status;
}

function handoffView(handoff, anchors) {
  const node = el("p", { class: "handoff", text: `→ handed off to ${handoff.toAgent}` });
  if (handoff.toLane !== null) anchors.handoffs.push({ from: node, toLane: handoff.toLane, after: handoff.position });
  return node;
}

/** Arrows from a handoff to its target lane and from a call to its sub-run, drawn over the grid. */
function drawArrows(wrapper, arrows, anchors) {
  const box = wrapper.getBoundingClientRect();
  arrows.setAttribute("width", String(wrapper.scrollWidth));
  arrows.setAttribute("height", String(wrapper.scrollHeight));
  arrows.append(arrowHead());
  const links = [
    ...anchors.handoffs.map((link) => ({ ...link, kind: "handoff" })),
    ...anchors.calls.map((link) => ({ ...link, kind: "sub-run" })),
  ];
  for (const link of links) {
    const next = (anchors.blocks.get(link.toLane) ?? []).find((block) => block.start > link.after);
    const target = next ? next.node : anchors.lanes.get(link.toLane);
    if (target) arrows.append(arrowPath(box, link.from.getBoundingClientRect(), target.getBoundingClientRect(), link.kind));
  }
}

function arrowHead() {
  return svg(
    "defs",
    {},
    svg("marker", { id: "arrow-head", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "8", markerHeight: "8", orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z" })),
  );
}

function arrowPath(box, from, to, kind) {
  const forward = to.left >= from.right;
  const x1 = (forward ? from.right : from.left) - box.left;
  const y1 = from.top + from.height / 2 - box.top;
  const x2 = (forward ? to.left : to.right) - box.left;
  const y2 = to.top + Math.min(24, to.height / 2) - box.top;
  const bend = Math.max(30, Math.abs(x2 - x1) / 2) * (forward ? 1 : -1);
  const d = `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
  return svg("path", { class: `arrow arrow-${kind}`, d, "marker-end": "url(#arrow-head)" });
}
