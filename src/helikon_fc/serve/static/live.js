// Following a run over its event stream (GET /runs/{id}/events). EventSource reconnects by itself and sends
// Last-Event-ID, so the server continues after the last event seen; the timeline also drops repeats by position.

import { eventsUrl } from "./api.js";
import { EVENT_TYPES } from "./timeline.js";

/**
 * Open the stream of run `runId`. `onEnvelope(envelope)` gets each event, `onEnd(status)` the final message
 * (the stream is closed then), `onState(words)` what the connection is doing. Returns a function that closes it.
 */
export function follow(runId, { onEnvelope, onEnd, onState }) {
  const source = new EventSource(eventsUrl(runId));
  const receive = (message) => {
    const envelope = parse(message.data, onState);
    if (envelope) onEnvelope(envelope);
  };
  for (const type of [...EVENT_TYPES, "message"]) source.addEventListener(type, receive);
  source.addEventListener("end", (message) => {
    source.close();
    const end = parse(message.data, onState);
    onEnd(end ? end.status : null);
  });
  source.addEventListener("open", () => onState("live"));
  source.addEventListener("error", () => {
    onState(source.readyState === EventSource.CLOSED ? "the event stream was refused" : "connection lost, reconnecting…");
  });
  return () => source.close();
}

function parse(data, onState) {
  try {
    return JSON.parse(data);
  } catch {
    onState("the server sent an event that is not JSON");
    return null;
  }
}
