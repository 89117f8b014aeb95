package narwhal.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import narwhal.api.AdmissionTicket;
import narwhal.api.ClientSink;
import narwhal.api.CompletionService;
import narwhal.api.RequestHandle;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * A test double for the router core: a {@link CompletionService} whose outcome a test scripts, so
 * a front-end (HTTP or gRPC) can be tested on its own, without engines, placement or a journal.
 * The script receives each submitted {@link Call} and drives its sink on the request's loop,
 * usually through {@link Call#after}, {@link Call#sequence} or {@link Call#stream}. Everything the
 * front-end asks of the service is recorded for assertions: admission {@link #tickets} and how
 * each ended, every submitted {@link #calls call} (with its deadline, if the front-end passed one),
 * the {@link #rejected} refusals, and each request's cancels, aborts and writability signals.
 *
 * <p>Both front-ends' tests share this one double, so they script the core the same way. As the
 * core does, it drops scripted steps once the front-end cancelled or aborted the request; a test
 * that wants late events delivered anyway (to show the front-end ignores them) turns that off with
 * {@link #runStepsAfterCancel}.
 */
public final class ScriptedCompletionService implements CompletionService {

  public static final String MODEL = "served-model";
  public static final long CREATED = 1_700_000_000L;

  private final AtomicInteger ids = new AtomicInteger();
  private final AtomicInteger ticketIds = new AtomicInteger();
  /** Every submitted request, in order; {@link #nextCall} does not consume it. */
  public final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  /** The submitted requests {@link #nextCall} has not handed out yet. */
  private final BlockingQueue<Call> unclaimed = new LinkedBlockingQueue<>();
  /** The messages of the refusals the front-end reported through {@code rejectInvalid}. */
  public final List<String> rejected = Collections.synchronizedList(new ArrayList<>());
  /** Every admission ticket handed out, in order. */
  public final BlockingQueue<Ticket> tickets = new LinkedBlockingQueue<>();
  private volatile Consumer<Call> script = call -> {};
  private volatile boolean ready = true;
  private volatile boolean stepsAfterCancel;
  private volatile @Nullable RouterError refusal;
  private volatile int seats = Integer.MAX_VALUE;
  private final AtomicInteger seated = new AtomicInteger();

  public void script(Consumer<Call> script) {
    this.script = script;
  }

  public void ready(boolean ready) {
    this.ready = ready;
  }

  /**
   * Whether scripted steps still run once the request was cancelled or aborted (default false:
   * they are dropped, as the core stops delivering to a request it was told to end).
   */
  public void runStepsAfterCancel(boolean run) {
    this.stepsAfterCancel = run;
  }

  /** Admission refuses every request with {@code error} (null: admits everything). */
  public void refuseAdmission(@Nullable RouterError error) {
    this.refusal = error;
  }

  /**
   * Admission holds at most {@code seats} requests, refusing the next with 429 as the core does.
   * A seat is freed when its ticket ends before submit, or when the front-end cancels or aborts the
   * request (a scripted completion keeps it).
   */
  public void seats(int seats) {
    this.seats = seats;
  }

  /** The next submitted call not yet handed out, waiting up to 10 s. */
  public Call nextCall() throws InterruptedException {
    Call call = unclaimed.poll(10, TimeUnit.SECONDS);
    if (call == null) {
      throw new AssertionError("no request was submitted");
    }
    return call;
  }

  /** How many submitted calls {@link #nextCall} has not handed out yet. */
  public int pendingCalls() {
    return unclaimed.size();
  }

  /** The one request submitted so far; fails if there were none or several. */
  public Call onlyCall() {
    synchronized (calls) {
      if (calls.size() != 1) {
        throw new AssertionError("expected one submitted request, got " + calls.size());
      }
      return calls.get(0);
    }
  }

  @Override
  public AdmissionTicket admit(Scheduler loop, long arrivalNanos, @Nullable String clientRequestId) {
    if (!loop.inLoop()) {
      throw new AssertionError("admit called off the request's loop");
    }
    RouterError refused = refusal;
    Runnable release = () -> {};
    if (refused == null && seats != Integer.MAX_VALUE) {
      if (seated.incrementAndGet() > seats) {
        seated.decrementAndGet();
        refused = RouterError.of(429, "server_overloaded_error", null, "router in-flight limit reached");
      } else {
        release = seated::decrementAndGet;
      }
    }
    Ticket ticket = new Ticket("ticket-" + ticketIds.incrementAndGet(), loop, arrivalNanos, refused, release);
    tickets.add(ticket);
    return ticket;
  }

  @Override
  public RequestHandle submit(AdmissionTicket ticket, CompletionRequest request, ClientSink sink) {
    Handle handle = record(request, sink, ticket.loop(), ticket.arrivalNanos(), null);
    if (ticket instanceof Ticket t) {
      handle.release = t.release; // the request now holds the ticket's seat
    }
    return handle;
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

  private Handle record(
      CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos, @Nullable Long deadlineNanos) {
    if (!loop.inLoop()) {
      throw new AssertionError("submit called off the request's loop");
    }
    Call call = new Call(request, sink, loop, arrivalNanos, deadlineNanos, "rid-" + ids.incrementAndGet(),
        stepsAfterCancel);
    calls.add(call);
    unclaimed.add(call);
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
  public @Nullable String notReadyReason() {
    return ready ? null : "no decode-capable engine in placement (d0 ejected (liveness))";
  }

  @Override
  public boolean ready() {
    return ready;
  }

  /** A text token, as the core streams it. */
  public static StreamEvent token(String text) {
    return StreamEvent.newBuilder().setToken(TokenDelta.newBuilder().setText(text)).build();
  }

  /** The final metadata: finish reason and usage. */
  public static StreamEvent finish(String reason, long prompt, long completion) {
    return StreamEvent.newBuilder().setMetadata(MetadataChunk.newBuilder()
        .setFinishReason(reason)
        .setUsage(Usage.newBuilder().setPromptTokens(prompt).setCompletionTokens(completion)
            .setTotalTokens(prompt + completion))).build();
  }

  /** The metadata announcing the message's role. */
  public static StreamEvent role(String role) {
    return StreamEvent.newBuilder().setMetadata(MetadataChunk.newBuilder().setRole(role)).build();
  }

  /** One submitted request and the handle the front-end holds for it. */
  public static final class Call {
    public final CompletionRequest request;
    public final ClientSink sink;
    public final Scheduler loop;
    public final long arrivalNanos;
    public final long submittedNanos;
    /** The client's deadline the front-end passed on submit, or null if it passed none. */
    public final @Nullable Long deadlineNanos;
    public final Handle handle;
    /** What {@link ClientSink#isWritable()} answered after each event {@link #deliver} delivered. */
    public final List<Boolean> writableAfterEvents = new CopyOnWriteArrayList<>();
    private final boolean stepsAfterCancel;

    Call(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos,
        @Nullable Long deadlineNanos, String id, boolean stepsAfterCancel) {
      this.request = request;
      this.sink = sink;
      this.loop = loop;
      this.arrivalNanos = arrivalNanos;
      this.submittedNanos = loop.nanoTime();
      this.deadlineNanos = deadlineNanos;
      this.handle = new Handle(id);
      this.stepsAfterCancel = stepsAfterCancel;
    }

    public ResponseStart start() {
      return new ResponseStart(handle.requestId(), MODEL, CREATED);
    }

    /**
     * Runs {@code step} on the request's loop after {@code millis}, unless the request was
     * cancelled or aborted by then (see {@link ScriptedCompletionService#runStepsAfterCancel}).
     */
    public void after(long millis, Runnable step) {
      loop.schedule(() -> {
        if (stepsAfterCancel || (handle.cancels.get() == 0 && handle.aborts.isEmpty())) {
          step.run();
        }
      }, millis, TimeUnit.MILLISECONDS);
    }

    /** Runs the steps on the loop in order, {@code gapMillis} apart, starting after one gap. */
    public void sequence(long gapMillis, Runnable... steps) {
      sequenceFrom(0, gapMillis, steps);
    }

    private void sequenceFrom(int next, long gapMillis, Runnable[] steps) {
      if (next < steps.length) {
        after(gapMillis, () -> {
          steps[next].run();
          sequenceFrom(next + 1, gapMillis, steps);
        });
      }
    }

    /** Delivers {@code event} as the core does: then asks whether the client can take more. */
    public void deliver(StreamEvent event) {
      sink.onEvent(event);
      writableAfterEvents.add(sink.isWritable());
    }

    /** onStart, then each event a millisecond apart, then onComplete. */
    public void stream(StreamEvent... events) {
      Runnable[] steps = new Runnable[events.length + 2];
      steps[0] = () -> sink.onStart(start());
      for (int i = 0; i < events.length; i++) {
        StreamEvent event = events[i];
        steps[i + 1] = () -> deliver(event);
      }
      steps[steps.length - 1] = sink::onComplete;
      sequence(1, steps);
    }
  }

  /** An admission ticket that records how the front-end ended it. */
  public static final class Ticket implements AdmissionTicket {
    private final String id;
    private final Scheduler loop;
    private final long arrivalNanos;
    private final @Nullable RouterError refusal;
    private final Runnable release;
    /** Each ending: {@code invalid:<status>}, {@code abandon} or {@code expired:<status>}. */
    public final List<String> endings = new CopyOnWriteArrayList<>();

    Ticket(String id, Scheduler loop, long arrivalNanos, @Nullable RouterError refusal, Runnable release) {
      this.id = id;
      this.loop = loop;
      this.arrivalNanos = arrivalNanos;
      this.refusal = refusal;
      this.release = release;
    }

    @Override
    public String requestId() {
      return id;
    }

    @Override
    public Scheduler loop() {
      return loop;
    }

    @Override
    public long arrivalNanos() {
      return arrivalNanos;
    }

    @Override
    public @Nullable RouterError refusal() {
      return refusal;
    }

    @Override
    public void invalid(RouterError error) {
      endings.add("invalid:" + error.status());
      release.run();
    }

    @Override
    public void abandon() {
      endings.add("abandon");
      release.run();
    }

    @Override
    public long timeLimitNanos() {
      return Long.MAX_VALUE;
    }

    @Override
    public void expired(RouterError error) {
      endings.add("expired:" + error.status());
      release.run();
    }
  }

  /** Records what the front-end asked of the request. */
  public static final class Handle implements RequestHandle {
    private final String id;
    public final AtomicInteger cancels = new AtomicInteger();
    /** Each abort as {@code reason: message}. */
    public final List<String> aborts = new CopyOnWriteArrayList<>();
    public final AtomicInteger writableCalls = new AtomicInteger();
    /** Runs on each {@link #clientWritable()}, on the request's loop. */
    public volatile Runnable onWritable = () -> {};
    /** Frees the admission seat the request holds, if any. */
    volatile Runnable release = () -> {};

    Handle(String id) {
      this.id = id;
    }

    @Override
    public String requestId() {
      return id;
    }

    @Override
    public void cancel() {
      cancels.incrementAndGet();
      release.run();
    }

    @Override
    public void abort(RouterError error, String reason) {
      aborts.add(reason + ": " + error.message());
      release.run();
    }

    @Override
    public void clientWritable() {
      writableCalls.incrementAndGet();
      onWritable.run();
    }
  }
}
