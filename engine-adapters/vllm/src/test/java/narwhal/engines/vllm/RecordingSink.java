package narwhal.engines.vllm;

import java.util.ArrayList;
import java.util.List;
import narwhal.api.ClientSink;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.proto.v1.StreamEvent;

/**
 * A client that records every call as a short line ("start", "token:Hi", "metadata", "complete",
 * "error:502:prefill") and keeps the values; {@link #writable} plays the client's socket.
 */
final class RecordingSink implements ClientSink {

  final List<String> log = new ArrayList<>();
  final List<StreamEvent> events = new ArrayList<>();
  final List<RouterError> errors = new ArrayList<>();
  ResponseStart start;
  boolean writable = true;

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

  RouterError error() {
    if (errors.size() != 1) {
      throw new AssertionError("expected exactly one error, got " + log);
    }
    return errors.get(0);
  }
}
