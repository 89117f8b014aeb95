package narwhal.testing;

import java.util.ArrayList;
import java.util.List;
import narwhal.api.ClientSink;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.proto.v1.StreamEvent;

/**
 * A client that records every call as a short line ("start", "token:Hi", "metadata", "complete",
 * "error:502:prefill") and keeps the values; {@link #writable} plays the client's socket.
 * Single-threaded: use it on a manual clock, where the router calls it on the test's thread.
 */
public final class RecordingSink implements ClientSink {

  public final List<String> log = new ArrayList<>();
  public final List<StreamEvent> events = new ArrayList<>();
  public final List<RouterError> errors = new ArrayList<>();
  public ResponseStart start;
  public boolean writable = true;

  @Override
  public void onStart(ResponseStart start) {
    this.start = start;
    log.add("start");
  }

  @Override
  public void onEvent(StreamEvent event) {
    events.add(event);
    log.add(event.hasToken() ? "token:" + event.getToken().getText() : event.getKindCase().name().toLowerCase());
  }

  @Override
  public void onComplete() {
    log.add("complete");
  }

  @Override
  public void onError(RouterError error) {
    errors.add(error);
    log.add("error:" + error.status() + ":" + error.type());
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  /** The one error the client received; fails the test unless there is exactly one. */
  public RouterError error() {
    if (errors.size() != 1) {
      throw new AssertionError("expected exactly one error, got " + log);
    }
    return errors.get(0);
  }
}
