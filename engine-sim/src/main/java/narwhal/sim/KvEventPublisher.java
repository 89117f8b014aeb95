package narwhal.sim;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import narwhal.sim.gpu.KvCacheEvent;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Publishes the engine's KV events as vLLM's {@code ZmqEventPublisher} does: a PUB socket sending
 * each batch as three frames {@code [topic, sequence number (8 bytes, big-endian), MessagePack
 * payload]}, sequence numbers counting from 0 for this process; the last {@code buffer_steps}
 * payloads kept for a ROUTER replay socket, which answers a request {@code [identity, "", start
 * seq]} with {@code [identity, "", seq, payload]} for every buffered batch from there on and then
 * {@code [identity, "", -1, ""]}.
 *
 * <p>Like vLLM's, sockets bind when the endpoint has a wildcard ({@code tcp://*:5557}) and connect
 * otherwise; the simulator also binds an ephemeral port for a port of {@code *} or 0 ({@code
 * tcp://127.0.0.1:*}), which tests use. One thread of its own owns both sockets; the step loop only
 * queues batches ({@link #publish}), never waiting: a full queue ({@code max_queue_size}) drops the
 * batch, and subscribers see the gap.
 */
final class KvEventPublisher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KvEventPublisher.class);
  private static final byte[] END = ByteBuffer.allocate(8).putLong(-1).array();

  private record Batch(double ts, List<KvCacheEvent> events) {}

  private final KvEventsSettings settings;
  private final ZContext ctx = new ZContext();
  private final ZMQ.Socket pub;
  private final ZMQ.@Nullable Socket replay;
  private final String endpoint;
  private final @Nullable String replayEndpoint;
  private final byte[] topic;
  private final BlockingQueue<Batch> queue;
  private final ArrayDeque<Object[]> buffer = new ArrayDeque<>();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong published = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private long nextSeq;

  KvEventPublisher(KvEventsSettings settings) {
    this.settings = settings;
    this.topic = settings.topic().getBytes(StandardCharsets.UTF_8);
    this.queue = new ArrayBlockingQueue<>(settings.maxQueueSize());
    try {
      pub = ctx.createSocket(SocketType.PUB);
      pub.setSndHWM(settings.hwm());
      pub.setLinger(0);
      endpoint = open(pub, settings.endpoint(), true);
      if (settings.replayEndpoint() != null) {
        replay = ctx.createSocket(SocketType.ROUTER);
        replay.setLinger(0);
        replayEndpoint = open(replay, settings.replayEndpoint(), false);
      } else {
        replay = null;
        replayEndpoint = null;
      }
    } catch (RuntimeException e) {
      ctx.close();
      throw new IllegalArgumentException("cannot open the KV event sockets (" + settings.endpoint() + "): "
          + e.getMessage(), e);
    }
    // The sockets pass to the publisher thread here (thread start is the memory barrier ZeroMQ asks for).
    thread = new Thread(this::run, "sim-kv-events");
    thread.setDaemon(true);
    thread.start();
  }

  /** The endpoint subscribers connect to (an ephemeral port resolved). */
  String endpoint() {
    return endpoint;
  }

  @Nullable String replayEndpoint() {
    return replayEndpoint;
  }

  /** Batches dropped because the queue was full. */
  long dropped() {
    return dropped.get();
  }

  /** Batches sent so far (the next sequence number). */
  long published() {
    return published.get();
  }

  /** Queues one step's events; never blocks. Any thread. */
  void publish(List<KvCacheEvent> events) {
    if (!running || events.isEmpty()) {
      return;
    }
    if (!queue.offer(new Batch(System.currentTimeMillis() / 1000.0, events))) {
      dropped.incrementAndGet();
    }
  }

  private static String open(ZMQ.Socket socket, String endpoint, boolean pubSide) {
    int colon = endpoint.lastIndexOf(':');
    String port = colon < 0 ? "" : endpoint.substring(colon + 1);
    String base = colon < 0 ? endpoint : endpoint.substring(0, colon);
    if (port.equals("*") || port.equals("0")) {
      int bound = socket.bindToRandomPort(base);
      String host = base.replace("tcp://", "").replace("*", "127.0.0.1");
      return "tcp://" + host + ":" + bound;
    }
    // vLLM's heuristic: a wildcard endpoint is bound, any other is connected to.
    if (endpoint.contains("*") || endpoint.contains("::") || !pubSide) {
      socket.bind(endpoint);
      return endpoint.replace("*", "127.0.0.1");
    }
    socket.connect(endpoint);
    return endpoint;
  }

  private void run() {
    try {
      while (running || !queue.isEmpty()) {
        serviceReplay();
        Batch batch;
        try {
          batch = queue.poll(20, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
        if (batch == null) {
          continue;
        }
        byte[] payload = KvEventEncoder.encode(batch.ts(), batch.events(), 0, settings.encoding());
        long seq = nextSeq++;
        byte[] seqBytes = ByteBuffer.allocate(8).putLong(seq).array();
        pub.send(topic, ZMQ.SNDMORE);
        pub.send(seqBytes, ZMQ.SNDMORE);
        pub.send(payload, 0);
        published.incrementAndGet();
        buffer.addLast(new Object[] {seq, payload});
        while (buffer.size() > settings.bufferSteps()) {
          buffer.pollFirst();
        }
      }
    } catch (RuntimeException e) {
      if (running) {
        log.warn("the KV event publisher stopped: {}", e.toString());
      }
    } finally {
      ctx.close();
    }
  }

  private void serviceReplay() {
    ZMQ.@Nullable Socket r = replay;
    if (r == null) {
      return;
    }
    while (true) {
      byte[] identity = r.recv(ZMQ.DONTWAIT);
      if (identity == null) {
        return;
      }
      java.util.List<byte[]> rest = new java.util.ArrayList<>();
      while (r.hasReceiveMore()) {
        rest.add(r.recv(0));
      }
      if (rest.size() != 2 || rest.get(1).length != 8) {
        log.warn("Invalid replay request of {} frames", rest.size() + 1);
        continue; // as vLLM: an invalid request is logged and not answered
      }
      long start = ByteBuffer.wrap(rest.get(1)).getLong();
      for (Object[] entry : buffer) {
        long seq = (Long) entry[0];
        if (seq >= start) {
          r.send(identity, ZMQ.SNDMORE);
          r.send(new byte[0], ZMQ.SNDMORE);
          r.send(ByteBuffer.allocate(8).putLong(seq).array(), ZMQ.SNDMORE);
          r.send((byte[]) entry[1], 0);
        }
      }
      r.send(identity, ZMQ.SNDMORE);
      r.send(new byte[0], ZMQ.SNDMORE);
      r.send(END, ZMQ.SNDMORE);
      r.send(new byte[0], 0);
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
