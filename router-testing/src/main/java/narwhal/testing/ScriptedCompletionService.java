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
import java.util.Map;
import narwhal.api.AdmissionTicket;
import narwhal.api.Arrival;
import narwhal.api.Authentication;
import narwhal.api.ClientAuthenticator;
import narwhal.api.InvalidRequestException;
import narwhal.api.OffLoopPool;
import narwhal.api.ServedModel;
import narwhal.time.Deadline;
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
 * each ended, every submitted {@link #calls call} (with its arrival and deadline), the {@link
 * #unauthenticated} refusals, and each request's cancels, aborts and writability signals. It does
 * what the core does with a submitted request before running it: pins it to {@link #MODEL} (404
 * for another, ending the ticket invalid) and applies the trace context that came with it.
 *
 * <p>Why one class of about 440 lines: it is the whole core as a front-end sees it (admission,
 * tickets, submit, the calls and handles a test scripts and inspects), and a front-end's test
 * reaches all of it through one object.
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
  /** The refusals the front-end reported through {@code rejectUnauthenticated}, as their messages. */
  public final List<String> unauthenticated = Collections.synchronizedList(new ArrayList<>());
  /** Every admission ticket handed out, in order. */
  public final BlockingQueue<Ticket> tickets = new LinkedBlockingQueue<>();
  private volatile Consumer<Call> script = call -> {};
  private volatile boolean ready = true;
  private volatile boolean stepsAfterCancel;
  private volatile @Nullable RouterError refusal;
  private volatile int seats = Integer.MAX_VALUE;
  private final AtomicInteger seated = new AtomicInteger();
  private volatile long requestTimeoutNanos = Long.MAX_VALUE;
  private volatile OffLoopPool offLoop = OffLoopPool.create();
  private volatile ClientAuthenticator authenticator = ClientAuthenticator.OPEN;

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

  /**
   * The router's {@code serving.request_timeout_s}: each ticket's deadline is the earlier of the
   * client's and this after arrival (default: none).
   */
  public void requestTimeout(java.time.Duration timeout) {
    this.requestTimeoutNanos = timeout.toNanos();
  }

  /** The pool front-ends decode large requests on (default: the router's own settings). */
  public void offLoop(OffLoopPool pool) {
    this.offLoop = pool;
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
  public AdmissionTicket admit(Arrival arrival) {
    if (!arrival.loop().inLoop()) {
      throw new AssertionError("admit called off the request's loop");
    }
    Deadline deadline = requestTimeoutNanos == Long.MAX_VALUE ? arrival.clientDeadline()
        : Deadline.requestTimeout(arrival.arrivalNanos(), requestTimeoutNanos).earliest(arrival.clientDeadline());
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
    Ticket ticket = new Ticket(this, arrival, deadline, refused, release);
    tickets.add(ticket);
    return refused != null ? new AdmissionTicket.Refused(arrival, deadline, refused)
        : new AdmissionTicket.Admitted(arrival, deadline, ticket);
  }

  @Override
  public RequestHandle submit(AdmissionTicket ticket, CompletionRequest request, ClientSink sink) {
    if (!ticket.loop().inLoop()) {
      throw new AssertionError("submit called off the request's loop");
    }
    if (ticket instanceof AdmissionTicket.Refused refused) {
      Handle handle = new Handle(refused.requestId());
      refused.loop().execute(() -> sink.onError(refused.error()));
      return handle;
    }
    return ((AdmissionTicket.Admitted) ticket).takeOver(this).start(request, sink);
  }

  private RequestHandle record(Ticket ticket, CompletionRequest request, ClientSink sink) {
    CompletionRequest pinned;
    try {
      pinned = ServedModel.pin(request, MODEL);
    } catch (InvalidRequestException e) {
      ticket.invalid(e.error());
      Handle handle = new Handle(ticket.requestId());
      ticket.arrival.loop().execute(() -> sink.onError(e.error()));
      return handle;
    }
    Arrival arrival = ticket.arrival;
    Call call = new Call(ticket.arrival.trace().applyTo(pinned), sink, arrival, ticket.deadline,
        "rid-" + ids.incrementAndGet(), stepsAfterCancel);
    call.handle.release = ticket.release; // the request now holds the ticket's seat
    calls.add(call);
    unclaimed.add(call);
    script.accept(call);
    return call.handle;
  }

  /** Checks credentials with {@code authenticator} (default: every caller is let in, anonymous). */
  public void authenticator(ClientAuthenticator authenticator) {
    this.authenticator = authenticator;
  }

  @Override
  public ClientAuthenticator authenticator() {
    return authenticator;
  }

  @Override
  public void rejectUnauthenticated(Arrival arrival, Authentication refused) {
    RouterError error = refused.refusal();
    unauthenticated.add(error == null ? "" : error.message());
  }

  @Override
  public OffLoopPool offLoop() {
    return offLoop;
  }

  @Override
  public @Nullable Map<String, Object> stateDocument(Scheduler loop) {
    return null;
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
    public final Arrival arrival;
    public final Scheduler loop;
    public final long arrivalNanos;
    public final long submittedNanos;
    /** The request's deadline, as admission computed it. */
    public final Deadline deadline;
    /** The client's own deadline the front-end passed at arrival, or null if it passed none. */
    public final @Nullable Long deadlineNanos;
    public final Handle handle;
    /** What {@link ClientSink#isWritable()} answered after each event {@link #deliver} delivered. */
    public final List<Boolean> writableAfterEvents = new CopyOnWriteArrayList<>();
    private final boolean stepsAfterCancel;

    Call(CompletionRequest request, ClientSink sink, Arrival arrival, Deadline deadline, String id,
        boolean stepsAfterCancel) {
      this.request = request;
      this.sink = sink;
      this.arrival = arrival;
      this.loop = arrival.loop();
      this.arrivalNanos = arrival.arrivalNanos();
      this.submittedNanos = loop.nanoTime();
      this.deadline = deadline;
      this.deadlineNanos = arrival.clientDeadline().isSet() ? Long.valueOf(arrival.clientDeadline().atNanos()) : null;
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

  /** An admission ticket's service side, recording how the front-end ended it. */
  public static final class Ticket implements AdmissionTicket.Owner {
    private final ScriptedCompletionService service;
    private final Arrival arrival;
    private final Deadline deadline;
    private final @Nullable RouterError refusal;
    private final Runnable release;
    /** Each ending: {@code invalid:<status>}, {@code abandon} or {@code expired:<status>}. */
    public final List<String> endings = new CopyOnWriteArrayList<>();

    Ticket(ScriptedCompletionService service, Arrival arrival, Deadline deadline, @Nullable RouterError refusal,
        Runnable release) {
      this.service = service;
      this.arrival = arrival;
      this.deadline = deadline;
      this.refusal = refusal;
      this.release = release;
    }

    public String requestId() {
      return arrival.requestId();
    }

    /** What the front-end passed at arrival. */
    public Arrival arrival() {
      return arrival;
    }

    /** The refusal admission answered, or null when admitted. */
    public @Nullable RouterError refusal() {
      return refusal;
    }

    @Override
    public CompletionService issuer() {
      return service;
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
    public void expired(RouterError error) {
      endings.add("expired:" + error.status());
      release.run();
    }

    @Override
    public RequestHandle start(CompletionRequest request, ClientSink sink) {
      return service.record(this, request, sink);
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
