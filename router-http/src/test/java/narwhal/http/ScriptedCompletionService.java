package narwhal.http;

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
import narwhal.time.Scheduler;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CompletionService} whose outcome is a test-supplied script: the script receives the
 * submitted {@link Call} and drives the sink on the request's loop (usually through
 * {@link Call#after}). Every call is recorded for assertions.
 */
final class ScriptedCompletionService implements CompletionService {

  static final String MODEL = "served-model";
  static final long CREATED = 1_700_000_000L;

  private final AtomicInteger ids = new AtomicInteger();
  private final AtomicInteger ticketIds = new AtomicInteger();
  private final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
  private volatile Consumer<Call> script = call -> {};
  private volatile boolean ready = true;
  private volatile @Nullable RouterError refusal;
  private volatile int seats = Integer.MAX_VALUE;
  private final AtomicInteger seated = new AtomicInteger();
  final BlockingQueue<Ticket> tickets = new LinkedBlockingQueue<>();

  void script(Consumer<Call> script) {
    this.script = script;
  }

  void ready(boolean ready) {
    this.ready = ready;
  }

  /** Admission refuses every request with {@code error} (null: admits everything). */
  void refuseAdmission(@Nullable RouterError error) {
    this.refusal = error;
  }

  /**
   * Admission holds at most {@code seats} requests, refusing the next with 429 as the core does.
   * A seat is freed when its ticket ends before submit, or when the front-end cancels or aborts the
   * request (a scripted completion keeps it).
   */
  void seats(int seats) {
    this.seats = seats;
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
    RequestHandle handle = submit(request, sink, ticket.loop(), ticket.arrivalNanos());
    if (handle instanceof Handle h && ticket instanceof Ticket t) {
      h.release = t.release; // the request now holds the ticket's seat
    }
    return handle;
  }

  /** The next submitted call, waiting up to 10 s. */
  Call nextCall() throws InterruptedException {
    Call call = calls.poll(10, TimeUnit.SECONDS);
    if (call == null) {
      throw new AssertionError("no request was submitted");
    }
    return call;
  }

  int pendingCalls() {
    return calls.size();
  }

  @Override
  public RequestHandle submit(
      CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos) {
    if (!loop.inLoop()) {
      throw new AssertionError("submit called off the request's loop");
    }
    Call call = new Call(request, sink, loop, arrivalNanos, "rid-" + ids.incrementAndGet());
    calls.add(call);
    script.accept(call);
    return call.handle;
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

  /** One submitted request and the handle the front-end holds for it. */
  static final class Call {
    final CompletionRequest request;
    final ClientSink sink;
    final Scheduler loop;
    final long arrivalNanos;
    final long submittedNanos;
    final Handle handle;

    Call(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos, String id) {
      this.request = request;
      this.sink = sink;
      this.loop = loop;
      this.arrivalNanos = arrivalNanos;
      this.submittedNanos = loop.nanoTime();
      this.handle = new Handle(id);
    }

    ResponseStart start() {
      return new ResponseStart(handle.requestId(), MODEL, CREATED);
    }

    /** Runs {@code step} on the request's loop after {@code millis}. */
    void after(long millis, Runnable step) {
      loop.schedule(step, millis, TimeUnit.MILLISECONDS);
    }

    /** Runs the steps on the loop in order, {@code gapMillis} apart, starting after one gap. */
    void sequence(long gapMillis, Runnable... steps) {
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

    /** onStart, then each event, then onComplete. */
    void stream(StreamEvent... events) {
      Runnable[] steps = new Runnable[events.length + 2];
      steps[0] = () -> sink.onStart(start());
      for (int i = 0; i < events.length; i++) {
        StreamEvent event = events[i];
        steps[i + 1] = () -> sink.onEvent(event);
      }
      steps[steps.length - 1] = sink::onComplete;
      sequence(1, steps);
    }
  }

  /** An admission ticket that records how the front-end ended it. */
  static final class Ticket implements AdmissionTicket {
    private final String id;
    private final Scheduler loop;
    private final long arrivalNanos;
    private final @Nullable RouterError refusal;
    private final Runnable release;
    final List<String> endings = new CopyOnWriteArrayList<>();

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
  static final class Handle implements RequestHandle {
    private final String id;
    final AtomicInteger cancels = new AtomicInteger();
    /** Each abort as {@code reason: message}. */
    final List<String> aborts = new CopyOnWriteArrayList<>();
    final AtomicInteger writableCalls = new AtomicInteger();
    volatile Runnable onWritable = () -> {};
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
