package narwhal.kvindex;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The one thread that reads every engine's KV events: a ZeroMQ SUB socket per engine (ZeroMQ
 * sockets are not thread-safe, so all of them live on this thread), polled together, each message
 * handed to that engine's {@link EventFeed}; replays are asked on a DEALER socket made for the
 * occasion. Nothing here runs on an event loop, and nothing on an event loop waits for it:
 * placement reads the indexes the feeds keep.
 *
 * <p>Bounded: each SUB socket queues at most {@link #RECEIVE_HWM} messages (ZeroMQ drops past it:
 * a gap, which replay or a drop answers), refuses messages over {@link #MAX_MESSAGE_BYTES}, and
 * one engine is read at most {@link #BURST} messages at a time so a flooding engine cannot starve
 * the others. SUB sockets reconnect on their own when an engine goes away and comes back.
 */
final class EventSubscriber implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventSubscriber.class);
  static final int RECEIVE_HWM = 10_000;
  static final long MAX_MESSAGE_BYTES = 64L << 20;
  static final int BURST = 256;
  private static final int POLL_MILLIS = 100;

  /** One engine to follow. */
  record Subscription(EngineEntry entry, String endpoint, String topic, @org.jspecify.annotations.Nullable String replay) {}

  private final List<Subscription> subscriptions;
  private final int blockSize;
  private final long replayTimeoutNanos;
  private final LongSupplier clock;
  private final Runnable periodic;
  private final Thread thread;
  private volatile boolean running = true;
  /** Engines whose restart the router learned of, to be told to their feeds on this thread. */
  private final java.util.concurrent.ConcurrentLinkedQueue<String> restarted = new java.util.concurrent.ConcurrentLinkedQueue<>();

  EventSubscriber(List<Subscription> subscriptions, int blockSize, long replayTimeoutNanos, LongSupplier clock,
      Runnable periodic) {
    this.subscriptions = List.copyOf(subscriptions);
    this.blockSize = blockSize;
    this.replayTimeoutNanos = replayTimeoutNanos;
    this.clock = clock;
    this.periodic = periodic;
    this.thread = new Thread(this::run, "narwhal-kv-events");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Asks the thread to drop {@code iid}'s index (the engine restarted). Any thread. */
  void engineRestarted(String iid) {
    restarted.add(iid);
  }

  private void run() {
    try (ZContext ctx = new ZContext()) {
      List<ZMQ.Socket> sockets = new ArrayList<>();
      List<EventFeed> feeds = new ArrayList<>();
      ZMQ.Poller poller = ctx.createPoller(Math.max(1, subscriptions.size()));
      for (Subscription s : subscriptions) {
        ZMQ.Socket sub = ctx.createSocket(SocketType.SUB);
        sub.setRcvHWM(RECEIVE_HWM);
        sub.setMaxMsgSize(MAX_MESSAGE_BYTES);
        sub.setReconnectIVL(200);
        sub.setReconnectIVLMax(5_000);
        sub.setLinger(0);
        sub.subscribe(s.topic().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        sub.connect(s.endpoint());
        sockets.add(sub);
        poller.register(sub, ZMQ.Poller.POLLIN);
        feeds.add(new EventFeed(s.entry(), blockSize, replayer(ctx, s), clock));
      }
      long nextPeriodic = clock.getAsLong();
      while (running) {
        poller.poll(POLL_MILLIS);
        for (int i = 0; i < sockets.size() && running; i++) {
          ZMQ.Socket sub = sockets.get(i);
          for (int n = 0; n < BURST; n++) {
            List<byte[]> frames = receive(sub);
            if (frames == null) {
              break;
            }
            feeds.get(i).message(frames);
          }
        }
        String iid;
        while ((iid = restarted.poll()) != null) {
          for (int i = 0; i < subscriptions.size(); i++) {
            if (subscriptions.get(i).entry().iid.equals(iid)) {
              feeds.get(i).engineRestarted();
            }
          }
        }
        long now = clock.getAsLong();
        if (now - nextPeriodic >= 0) {
          nextPeriodic = now + 1_000_000_000L;
          periodic.run();
        }
      }
    } catch (RuntimeException e) {
      // A bug, not an engine's fault (those are handled per message): say so, and stop following.
      log.error("the KV event subscriber stopped: {}", e.toString(), e);
    }
  }

  /** One whole message, or null when none is waiting. */
  private static List<byte[]> receive(ZMQ.Socket socket) {
    byte[] first = socket.recv(ZMQ.DONTWAIT);
    if (first == null) {
      return null;
    }
    List<byte[]> frames = new ArrayList<>(3);
    frames.add(first);
    while (socket.hasReceiveMore() && frames.size() < 64) {
      frames.add(socket.recv(0));
    }
    while (socket.hasReceiveMore()) {
      socket.recv(0); // a message of absurdly many frames: the rest is read and discarded
      frames.add(new byte[0]);
    }
    return frames;
  }

  private Replayer replayer(ZContext ctx, Subscription s) {
    String endpoint = s.replay();
    if (endpoint == null) {
      return Replayer.NONE;
    }
    return (from, upTo) -> replay(ctx, endpoint, from, upTo);
  }

  /**
   * vLLM's replay protocol on a DEALER socket: send an empty delimiter and the start sequence
   * number (8 bytes, big-endian); the ROUTER answers {@code [empty, seq, payload]} per buffered
   * message from there on, then {@code [empty, -1, ""]}. A fresh socket each time, closed after,
   * so a late answer to an abandoned replay can never be read as the next one's.
   */
  private List<Replayer.Replayed> replay(ZContext ctx, String endpoint, long from, long upTo) {
    List<Replayer.Replayed> out = new ArrayList<>();
    ZMQ.Socket dealer = ctx.createSocket(SocketType.DEALER);
    try {
      dealer.setLinger(0);
      dealer.setMaxMsgSize(MAX_MESSAGE_BYTES);
      dealer.connect(endpoint);
      dealer.sendMore(new byte[0]);
      dealer.send(ByteBuffer.allocate(8).putLong(from).array(), 0);
      long deadline = clock.getAsLong() + replayTimeoutNanos;
      ZMQ.Poller poller = ctx.createPoller(1);
      try {
        poller.register(dealer, ZMQ.Poller.POLLIN);
        while (true) {
          long left = deadline - clock.getAsLong();
          if (left <= 0) {
            return out;
          }
          poller.poll(Math.max(1, left / 1_000_000));
          List<byte[]> frames = receive(dealer);
          if (frames == null) {
            continue;
          }
          if (frames.size() != 3 || frames.get(1).length != 8) {
            return out; // not vLLM's replay answer: what came so far is all there is
          }
          long seq = ByteBuffer.wrap(frames.get(1)).getLong();
          if (seq < 0) {
            return out;
          }
          if (seq >= from && seq <= upTo) {
            out.add(new Replayer.Replayed(seq, frames.get(2)));
          }
          if (seq >= upTo) {
            return out;
          }
        }
      } finally {
        poller.close();
      }
    } finally {
      ctx.destroySocket(dealer);
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
