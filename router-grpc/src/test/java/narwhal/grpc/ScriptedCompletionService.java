package narwhal.grpc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import narwhal.api.ClientSink;
import narwhal.api.CompletionService;
import narwhal.api.RequestHandle;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.time.Scheduler;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CompletionService} whose outcome a test scripts: the script receives each submitted
 * {@link Call} and drives its sink on the call's scheduler, usually through {@link Call#after}.
 * Everything submitted, and everything the front-end asked of each request, is recorded.
 */
final class ScriptedCompletionService implements CompletionService {

  static final String MODEL = "served-model";
  static final long CREATED = 1_700_000_000L;

  final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  /** The messages of the refusals the front-end reported through {@code rejectInvalid}. */
  final List<String> rejected = Collections.synchronizedList(new ArrayList<>());
  private volatile Consumer<Call> script = call -> {};
  private volatile boolean ready = true;

  void script(Consumer<Call> script) {
    this.script = script;
  }

  void ready(boolean ready) {
    this.ready = ready;
  }

  Call onlyCall() {
    if (calls.size() != 1) {
      throw new AssertionError("expected one submitted request, got " + calls.size());
    }
    return calls.get(0);
  }

  @Override
  public RequestHandle submit(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos) {
    return record(request, sink, loop, arrivalNanos, null);
  }

  @Override
  public RequestHandle submit(
      CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos, long deadlineNanos) {
    return record(request, sink, loop, arrivalNanos, deadlineNanos);
  }

  private RequestHandle record(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos,
      @Nullable Long deadlineNanos) {
    if (!loop.inLoop()) {
      throw new AssertionError("submit called off the request's loop");
    }
    Call call = new Call(request, sink, loop, arrivalNanos, deadlineNanos, "rid-" + (calls.size() + 1));
    calls.add(call);
    script.accept(call);
    return call.handle;
  }

  @Override
  public void rejectInvalid(Scheduler loop, long arrivalNanos, @Nullable String clientRequestId, RouterError error) {
    rejected.add(error.message());
  }

  @Override
  public String model() {
    return MODEL;
  }

  @Override
  public boolean ready() {
    return ready;
  }

  static StreamEvent token(String text) {
    return StreamEvent.newBuilder().setToken(TokenDelta.newBuilder().setText(text)).build();
  }

  static StreamEvent finish(String reason, long prompt, long completion) {
    return StreamEvent.newBuilder().setMetadata(MetadataChunk.newBuilder()
        .setFinishReason(reason)
        .setUsage(Usage.newBuilder().setPromptTokens(prompt).setCompletionTokens(completion)
            .setTotalTokens(prompt + completion))).build();
  }

  static StreamEvent role(String role) {
    return StreamEvent.newBuilder().setMetadata(MetadataChunk.newBuilder().setRole(role)).build();
  }

  /** One submitted request and the handle the front-end holds for it. */
  static final class Call {
    final CompletionRequest request;
    final ClientSink sink;
    final Scheduler loop;
    final long arrivalNanos;
    final @Nullable Long deadlineNanos;
    final Handle handle;
    /** What {@link ClientSink#isWritable()} answered after each event the script delivered. */
    final List<Boolean> writableAfterEvents = new ArrayList<>();

    Call(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos,
        @Nullable Long deadlineNanos, String id) {
      this.request = request;
      this.sink = sink;
      this.loop = loop;
      this.arrivalNanos = arrivalNanos;
      this.deadlineNanos = deadlineNanos;
      this.handle = new Handle(id);
    }

    ResponseStart start() {
      return new ResponseStart(handle.requestId(), MODEL, CREATED);
    }

    /** Runs {@code step} on the request's loop after {@code millis} (unless cancelled by then). */
    void after(long millis, Runnable step) {
      loop.schedule(() -> {
        if (handle.cancels == 0 && handle.aborts.isEmpty()) {
          step.run();
        }
      }, millis, TimeUnit.MILLISECONDS);
    }

    /** Delivers {@code event} as the core does: then asks whether the client can take more. */
    void deliver(StreamEvent event) {
      sink.onEvent(event);
      writableAfterEvents.add(sink.isWritable());
    }

    /** onStart, then each event a millisecond apart, then onComplete. */
    void stream(StreamEvent... events) {
      after(1, () -> sink.onStart(start()));
      for (int i = 0; i < events.length; i++) {
        StreamEvent event = events[i];
        after(2 + i, () -> deliver(event));
      }
      after(2 + events.length, sink::onComplete);
    }
  }

  /** Records what the front-end asked of the request. */
  static final class Handle implements RequestHandle {
    private final String id;
    // Written on the call's loop, read by the test's thread.
    volatile int cancels;
    volatile int writableCalls;
    final List<String> aborts = Collections.synchronizedList(new ArrayList<>());

    Handle(String id) {
      this.id = id;
    }

    @Override
    public String requestId() {
      return id;
    }

    @Override
    public void cancel() {
      cancels = cancels + 1;
    }

    @Override
    public void abort(RouterError error, String reason) {
      aborts.add(reason + ": " + error.message());
    }

    @Override
    public void clientWritable() {
      writableCalls = writableCalls + 1;
    }
  }
}
