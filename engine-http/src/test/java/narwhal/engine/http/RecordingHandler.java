package narwhal.engine.http;

import narwhal.testing.Poll;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.TransportFailure;

/**
 * Records every callback as a line ({@code head 200 application/json}, {@code event …}, {@code body
 * …}, {@code end}, {@code failure KIND}) and whether each ran on the expected thread.
 */
class RecordingHandler implements ExchangeHandler {

  final List<String> calls = new CopyOnWriteArrayList<>();
  final List<String> events = new CopyOnWriteArrayList<>();
  private final BooleanSupplier onExpectedThread;
  private final List<String> offThread = new CopyOnWriteArrayList<>();
  volatile TransportFailure failure;
  volatile Consumer<String> onEventHook = data -> {};

  RecordingHandler(BooleanSupplier onExpectedThread) {
    this.onExpectedThread = onExpectedThread;
  }

  private void record(String call) {
    if (!onExpectedThread.getAsBoolean()) {
      offThread.add(call + " on " + Thread.currentThread().getName());
    }
    calls.add(call);
  }

  @Override
  public void onHead(int status, String contentType) {
    record("head " + status + " " + contentType);
  }

  @Override
  public void onEvent(String data) {
    record("event " + data);
    events.add(data);
    onEventHook.accept(data);
  }

  @Override
  public void onBody(String body) {
    record("body " + body);
  }

  @Override
  public void onEnd() {
    record("end");
  }

  @Override
  public void onFailure(TransportFailure failure) {
    this.failure = failure;
    record("failure " + failure.kind());
  }

  boolean ended() {
    if (calls.isEmpty()) {
      return false;
    }
    String last = calls.get(calls.size() - 1);
    return last.equals("end") || last.startsWith("failure");
  }

  /** Callbacks that ran off the expected thread (should be none). */
  List<String> offThreadCalls() {
    return offThread;
  }

  void awaitEnd() {
    Poll.until("the exchange to end; calls so far: " + calls, this::ended);
  }
}
