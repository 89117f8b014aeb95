package narwhal.bench.wakeup;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import narwhal.bench.wakeup.Plan.Block;

/**
 * The measuring side of {@code bench wakeup}, run as its own JVM pinned to a CPU other than the
 * echo server's. It connects to the echo server, warms both JVMs up with back-to-back round trips,
 * then runs the {@link Plan}: for each sample it waits the block's idle gap after the previous
 * echo arrived, sends {@code bytes} bytes, and times (System.nanoTime) until all of them are back.
 *
 * <p>Only the echo's CPU may idle through the gap, so the prober keeps its own wake-up out of the
 * figure twice over: it parks (LockSupport.parkNanos, so a 20 ms gap does not burn a core) only
 * until {@code early-wake-ns} before the send time and spins the rest of the way, so it is running
 * when the send is due however long its own CPU takes to wake; and it reads the echo by spinning
 * on a non-blocking socket ({@code spin-read true}), so the answer is seen as it lands rather
 * than after the prober's CPU wakes from a blocking read. Gaps up to {@code early-wake-ns} are spun
 * through entirely. A send that still starts more than {@link #LATE_NANOS} after its time (the
 * park overslept, or the prober was preempted) is counted as late, and the report shows the count.
 *
 * <p>Results are held in memory and printed only when the plan is done ({@link BlockResult}
 * lines, then {@code done}): printing between blocks would wake the harness reading the pipe.
 *
 * <p>Arguments, as {@code --name value} pairs: {@code --host}, {@code --port}, {@code --bytes},
 * {@code --spin-read true|false}, {@code --early-wake-ns}, {@code --warmup-ns}, {@code --plan}
 * ({@link Plan#encode()}).
 */
public final class Prober {

  /**
   * Round trips at the start of each block that are not recorded: the first after a change of gap
   * follows the previous block's idle length, not this one's.
   */
  static final int LEAD_IN = 3;

  /** A send more than this after its planned time counts as late. */
  static final long LATE_NANOS = 10_000;

  /** Warm-up round trips at the least, however short --warmup-ns. */
  private static final int MIN_WARMUP = 200;

  private final SocketChannel channel;
  private final ByteBuffer out;
  private final ByteBuffer in;
  private final long earlyWakeNanos;
  private long lastEcho;
  private long sentAt;

  private Prober(SocketChannel channel, int bytes, long earlyWakeNanos) {
    this.channel = channel;
    this.out = ByteBuffer.allocateDirect(bytes);
    while (out.hasRemaining()) {
      out.put((byte) 'x');
    }
    this.in = ByteBuffer.allocateDirect(bytes);
    this.earlyWakeNanos = earlyWakeNanos;
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> a = ChildArgs.parse(args);
    String host = ChildArgs.get(a, "--host");
    int port = Integer.parseInt(ChildArgs.get(a, "--port"));
    int bytes = Integer.parseInt(ChildArgs.get(a, "--bytes"));
    boolean spinRead = Boolean.parseBoolean(ChildArgs.get(a, "--spin-read"));
    long earlyWake = Long.parseLong(ChildArgs.get(a, "--early-wake-ns"));
    long warmup = Long.parseLong(ChildArgs.get(a, "--warmup-ns"));
    Plan plan = Plan.decode(ChildArgs.get(a, "--plan"));
    ChildArgs.exitWhenParentGoes(3);

    List<BlockResult> results = new ArrayList<>();
    try (SocketChannel ch = SocketChannel.open()) {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.connect(new InetSocketAddress(host, port));
      // Non-blocking: read() returns 0 at once while nothing has arrived, and the loop calls again.
      ch.configureBlocking(!spinRead);
      Prober prober = new Prober(ch, bytes, earlyWake);
      int n = prober.warmUp(warmup);
      System.err.println("prober: warmed up with " + n + " round trips; measuring " + plan.blocks().size()
          + " blocks");
      for (Block block : plan.blocks()) {
        results.add(prober.run(block));
      }
    }
    PrintStream stdout = System.out;
    for (BlockResult r : results) {
      stdout.println(r.line());
    }
    stdout.println("done");
    stdout.flush();
  }

  /** Back-to-back round trips for {@code nanos} (at least {@link #MIN_WARMUP}): the JIT compiles both sides. */
  private int warmUp(long nanos) throws IOException {
    long end = System.nanoTime() + nanos;
    int n = 0;
    while (n < MIN_WARMUP || System.nanoTime() < end) {
      roundTrip();
      n++;
    }
    return n;
  }

  private BlockResult run(Block block) throws IOException {
    long[] rtts = new long[block.samples()];
    int late = 0;
    long maxLate = 0;
    for (int i = -LEAD_IN; i < rtts.length; i++) {
      long sendAt = lastEcho + block.gapNanos();
      waitUntil(sendAt);
      long rtt = roundTrip();
      if (i < 0) {
        continue;
      }
      rtts[i] = rtt;
      long lateness = block.gapNanos() == 0 ? 0 : sentAt - sendAt;
      maxLate = Math.max(maxLate, lateness);
      if (lateness > LATE_NANOS) {
        late++;
      }
    }
    return new BlockResult(block.gap(), late, maxLate, rtts);
  }

  /** Parks until {@code earlyWakeNanos} before {@code deadline}, then spins to it. */
  private void waitUntil(long deadline) {
    long remaining;
    while ((remaining = deadline - System.nanoTime()) > earlyWakeNanos) {
      LockSupport.parkNanos(remaining - earlyWakeNanos);
    }
    while (System.nanoTime() - deadline < 0) {
      Thread.onSpinWait();
    }
  }

  /** Sends the message and waits for all of it to come back; the time between, in nanoseconds. */
  private long roundTrip() throws IOException {
    out.clear();
    in.clear();
    long t0 = System.nanoTime();
    while (out.hasRemaining()) {
      channel.write(out);
    }
    while (in.hasRemaining()) {
      if (channel.read(in) < 0) {
        throw new EOFException("the echo server closed the connection");
      }
    }
    long t1 = System.nanoTime();
    sentAt = t0;
    lastEcho = t1;
    return t1 - t0;
  }
}
