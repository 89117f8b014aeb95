package narwhal.core.request;

import java.util.ArrayDeque;
import narwhal.api.ClientSink;
import narwhal.api.ResponseStart;
import narwhal.proto.v1.StreamEvent;

/**
 * The client's side of a request's decode stream. Metadata events before the first token (e.g.
 * the chat role chunk) are held, since no response is committed yet and a retry may still
 * replace the attempt; from the first token on, events go straight to the client, and a client
 * that cannot keep up pauses the decode leg's read, so nothing is buffered without bound between
 * a fast engine and a slow reader. Confined to the request's scheduler.
 */
final class ClientRelay {

  /** Metadata events held before the first token, as in the Python router. */
  private static final int MAX_EVENTS_BEFORE_FIRST_TOKEN = 64;

  private final ClientSink sink;
  private final AttemptLegs legs;
  private final ArrayDeque<StreamEvent> heldBeforeFirstToken = new ArrayDeque<>();
  private boolean paused;

  ClientRelay(ClientSink sink, AttemptLegs legs) {
    this.sink = sink;
    this.legs = legs;
  }

  /** A metadata event before the first token; past the cap it is dropped. */
  void hold(StreamEvent event) {
    if (heldBeforeFirstToken.size() < MAX_EVENTS_BEFORE_FIRST_TOKEN) {
      heldBeforeFirstToken.add(event);
    }
  }

  /** The first token: the response starts, with the events held until now. */
  void commit(ResponseStart start) {
    sink.onStart(start);
    while (!heldBeforeFirstToken.isEmpty()) {
      sink.onEvent(heldBeforeFirstToken.poll());
    }
  }

  void deliver(StreamEvent event) {
    sink.onEvent(event);
    if (!paused && !sink.isWritable() && legs.decodeCall != null) {
      paused = true;
      legs.decodeCall.pause();
    }
  }

  /** The client drained its buffer: resume a paused decode read. */
  void clientWritable() {
    if (paused && legs.decodeCall != null) {
      paused = false;
      legs.decodeCall.resume();
    }
  }

  void clear() {
    heldBeforeFirstToken.clear();
  }
}
