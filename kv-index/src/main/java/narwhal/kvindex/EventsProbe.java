package narwhal.kvindex;

import java.nio.ByteBuffer;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Preflight's check that an engine's KV event publisher answers: a replay request from the
 * largest sequence number there is, on the engine's ROUTER replay socket, which vLLM answers with
 * nothing buffered and then its end marker (sequence -1). A PUB socket alone cannot be probed (it
 * answers nothing), so an engine without a replay endpoint is only reachable by its events.
 * Blocks the calling thread (preflight's, never an event loop) for at most {@code timeout}.
 */
public final class EventsProbe {

  private EventsProbe() {}

  /** Null when the replay socket answered with vLLM's end marker in time; else what happened. */
  public static @Nullable String ping(String replayEndpoint, Duration timeout) {
    try (ZContext ctx = new ZContext()) {
      ZMQ.Socket dealer = ctx.createSocket(SocketType.DEALER);
      dealer.setLinger(0);
      dealer.setMaxMsgSize(1 << 20);
      dealer.setReceiveTimeOut((int) Math.max(1, timeout.toMillis()));
      dealer.connect(replayEndpoint);
      dealer.sendMore(new byte[0]);
      dealer.send(ByteBuffer.allocate(8).putLong(Long.MAX_VALUE).array(), 0);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        byte[] first = dealer.recv(0);
        if (first == null) {
          break;
        }
        java.util.List<byte[]> frames = new java.util.ArrayList<>();
        frames.add(first);
        while (dealer.hasReceiveMore() && frames.size() < 8) {
          frames.add(dealer.recv(0));
        }
        if (frames.size() == 3 && frames.get(1).length == 8 && ByteBuffer.wrap(frames.get(1)).getLong() == -1) {
          return null;
        }
      }
      return "no answer from the replay endpoint " + replayEndpoint + " within " + timeout.toMillis()
          + " ms: is the engine started with --kv-events-config and this replay_endpoint?";
    } catch (RuntimeException e) {
      return "cannot reach the replay endpoint " + replayEndpoint + ": " + e.getMessage();
    }
  }
}
