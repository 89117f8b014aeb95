package narwhal.bench.load;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The load generator: a few Netty event loops (no thread per stream) driving closed-loop
 * concurrency levels or open-loop Poisson arrivals. Each request lives on one loop from its first
 * byte to its last, with that loop's keep-alive pools and statistics.
 *
 * <p>Runs are sequential; {@link #closedLoop} and {@link #openLoop} block the calling (driver)
 * thread for the run's duration and close every connection the run opened before returning, so
 * idle sockets of one arm never count against the next one's file budget.
 */
public final class Generator implements AutoCloseable {

  private static final long ERROR_BACKOFF_MS = 10;

  private final EventLoopGroup group;
  private final List<LoopClient> clients = new ArrayList<>();

  public Generator(int loops) {
    group = new MultiThreadIoEventLoopGroup(loops, new DefaultThreadFactory("bench-loop", true),
        NioIoHandler.newFactory());
    for (int i = 0; i < loops; i++) {
      clients.add(new LoopClient((EventLoop) group.next()));
    }
  }

  /** Each call a new run: fresh statistics on every loop. */
  private List<LoopRuntime> runtimes() {
    List<LoopRuntime> rts = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      rts.add(new LoopRuntime(i, clients.get(i)));
    }
    return rts;
  }

  /**
   * {@code concurrency} streams, each issuing its next request as soon as the previous one ends,
   * started evenly over the ramp.
   */
  public RunResult closedLoop(Arm arm, Workload workload, Targets targets, int concurrency,
      LoadShape shape, Phases phases) {
    Window window = new Window();
    RunContext ctx = new RunContext(arm, workload, targets, window, shape.requestTimeout().toNanos());
    current = ctx;
    List<LoopRuntime> rts = runtimes();
    AtomicInteger active = new AtomicInteger(concurrency);
    Stop stop = new Stop();
    long rampNanos = shape.ramp().toNanos();
    for (int i = 0; i < concurrency; i++) {
      LoopRuntime rt = rts.get(i % rts.size());
      long delay = concurrency == 1 ? 0 : rampNanos * i / concurrency;
      rt.loop().schedule(() -> new Slot(ctx, rt, stop, active).next(), delay, TimeUnit.NANOSECONDS);
    }
    return drive(rts, window, shape, phases, stop, active::get, concurrency);
  }

  /** Poisson arrivals at {@code ratePerSecond}; at most {@code maxInFlight} at once (more are errors). */
  public RunResult openLoop(Arm arm, Workload workload, Targets targets, double ratePerSecond, long seed,
      int maxInFlight, LoadShape shape, Phases phases) {
    Window window = new Window();
    RunContext ctx = new RunContext(arm, workload, targets, window, shape.requestTimeout().toNanos());
    current = ctx;
    List<LoopRuntime> rts = runtimes();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    Stop stop = new Stop();
    new Arrivals(ctx, rts, new PoissonSchedule(ratePerSecond, seed), stop, inFlight, peak, maxInFlight).start();
    RunResult r = drive(rts, window, shape, phases, stop, inFlight::get, 0);
    return new RunResult(r.stats(), r.windowSeconds(), peak.get(), r.drained());
  }

  private RunResult drive(List<LoopRuntime> rts, Window window, LoadShape shape, Phases phases, Stop stop,
      IntSupplier inFlight, int peakInFlight) {
    sleep(shape.ramp().plus(shape.warmup()));
    phases.windowOpening();
    window.open(System.nanoTime());
    phases.windowOpened();
    long end = System.nanoTime() + shape.measure().toNanos();
    while (true) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        break;
      }
      sleep(Duration.ofNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(shape.sampleMillis()))));
      phases.sample();
    }
    window.close(System.nanoTime());
    phases.windowClosed();
    stop.stopping = true;
    long drainDeadline = System.nanoTime() + shape.requestTimeout().plusSeconds(5).toNanos();
    while (inFlight.getAsInt() > 0 && System.nanoTime() < drainDeadline) {
      sleep(Duration.ofMillis(20));
    }
    boolean drained = inFlight.getAsInt() == 0;
    LoopStats total = new LoopStats();
    for (LoopRuntime rt : rts) {
      // Read each loop's statistics on the loop itself: the hand-off orders its writes before ours.
      await(rt.loop().submit(() -> {
        total.add(rt.stats);
        rt.client.closeAll();
      }));
    }
    return new RunResult(total, window.seconds(), peakInFlight, drained);
  }

  private volatile @Nullable RunContext current;

  /** Streams of the current run that got their first token and have not ended. */
  public int streaming() {
    RunContext c = current;
    return c == null ? 0 : c.streaming().get();
  }

  /** Connections open right now across the loops (for the ceiling's file budget). */
  public int openConnections() {
    int n = 0;
    for (LoopClient c : clients) {
      n += awaitValue(c.loop().submit(c::openConnections));
    }
    return n;
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  static final class Stop {
    volatile boolean stopping;
  }

  /** One closed-loop stream: a request, then the next, until the run stops. */
  private static final class Slot {
    private final RunContext ctx;
    private final LoopRuntime rt;
    private final Stop stop;
    private final AtomicInteger active;

    Slot(RunContext ctx, LoopRuntime rt, Stop stop, AtomicInteger active) {
      this.ctx = ctx;
      this.rt = rt;
      this.stop = stop;
      this.active = active;
    }

    void next() {
      if (stop.stopping) {
        active.decrementAndGet();
        return;
      }
      int prompt = rt.nextPrompt(ctx.workload().size());
      new StreamRequest(ctx, rt, prompt, System.nanoTime(), ok -> {
        if (ok) {
          next();
        } else {
          // A failing target must not turn the generator into a busy loop of instant errors.
          rt.loop().schedule(this::next, ERROR_BACKOFF_MS, TimeUnit.MILLISECONDS);
        }
      }).start();
    }
  }

  /** Open-loop arrivals, timed on the first loop, each request handed to the next loop in turn. */
  private static final class Arrivals {
    private final RunContext ctx;
    private final List<LoopRuntime> rts;
    private final PoissonSchedule schedule;
    private final Stop stop;
    private final AtomicInteger inFlight;
    private final AtomicInteger peak;
    private final int maxInFlight;
    private final EventLoop timer;
    private long nextAt;
    private int turn;

    Arrivals(RunContext ctx, List<LoopRuntime> rts, PoissonSchedule schedule, Stop stop, AtomicInteger inFlight,
        AtomicInteger peak, int maxInFlight) {
      this.ctx = ctx;
      this.rts = rts;
      this.schedule = schedule;
      this.stop = stop;
      this.inFlight = inFlight;
      this.peak = peak;
      this.maxInFlight = maxInFlight;
      this.timer = rts.get(0).loop();
    }

    void start() {
      nextAt = System.nanoTime() + schedule.nextGapNanos();
      timer.execute(this::fire);
    }

    private void fire() {
      long now = System.nanoTime();
      // Fire every arrival that is due; each keeps its scheduled time as its start, so a late
      // timer shows up as latency instead of silently thinning the load.
      while (nextAt <= now && !stop.stopping) {
        arrive(nextAt);
        nextAt += schedule.nextGapNanos();
      }
      if (!stop.stopping) {
        timer.schedule(this::fire, Math.max(0, nextAt - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    }

    private void arrive(long at) {
      LoopRuntime rt = rts.get(turn++ % rts.size());
      int now = inFlight.incrementAndGet();
      if (now > maxInFlight) {
        inFlight.decrementAndGet();
        rt.loop().execute(() -> rt.stats.recordError("generator_in_flight_cap",
            "more than " + maxInFlight + " requests in flight", ctx.window().contains(System.nanoTime())));
        return;
      }
      peak.accumulateAndGet(now, Math::max);
      rt.loop().execute(() -> new StreamRequest(ctx, rt, rt.nextPrompt(ctx.workload().size()), at,
          ok -> inFlight.decrementAndGet()).start());
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(Math.max(0, d.toMillis()), (int) (d.toNanos() % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void await(io.netty.util.concurrent.Future<?> f) {
    awaitValue(f);
  }

  private static <T> T awaitValue(io.netty.util.concurrent.Future<T> f) {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("event loop task failed", e);
    }
  }
}
