package narwhal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import narwhal.core.fleet.ArrivalTally.Arrivals;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.fleet.PeerWork;
import narwhal.netty.EventLoopScheduler;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resident work, fleet-wide, without etcd in the loop: every {@code cluster.load_interval_s} each
 * replica sends the other live replicas one UDP datagram with its own resident work per engine and
 * its arrival totals, and sums what it receives into each engine's {@link EngineState#peerWork}
 * (and the peers' new arrivals into the fleet's tally, for the elected controller's demand).
 * Placement, predictive admission and the controller read those sums: fleet-wide load, no etcd
 * request per decision, and at most one interval old.
 *
 * <p>Each datagram also carries the engines the sender holds in quarantine (a failed leg keeps its
 * engine out of placement for {@code recovery.failure_quarantine_s}) and for how much longer, so a
 * quarantine decided on one replica holds on every replica within one interval, without an etcd
 * write per failed leg.
 *
 * <p>Datagrams are authenticated (HMAC-SHA256 with the fleet's key from {@code secret} in etcd),
 * must come from a live member's current incarnation (its lease) with a rising sequence, are
 * bounded in size and parsed defensively: anything else is counted as rejected and dropped. A
 * lost datagram costs one interval; a peer silent for a lease TTL, or no longer a member, stops
 * counting. All state is confined to this exchange's own event loop.
 */
final class LoadExchange implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LoadExchange.class);
  private static final int MAC_BYTES = 32;
  private static final int MAX_DATAGRAM = 60_000;
  /** The longest quarantine a peer's datagram may impose (ten minutes): longer is a malformed value. */
  private static final long MAX_QUARANTINE_MS = 600_000;

  /** One peer's latest datagram: its work per engine and its arrival totals. */
  private record PeerLoad(long incarnation, long seq, Map<String, PeerWork> work, Arrivals arrivals, long atNanos) {}

  private final Fleet fleet;
  private final EventLoopGroup group;
  private final Channel channel;
  private final Scheduler loop;
  private final long intervalNanos;
  private final long staleNanos;
  private final ClusterMetrics metrics;
  private final Map<String, PeerLoad> peers = new HashMap<>();
  /** When each peer's last datagram arrived, for the state endpoint on other threads. */
  private volatile Map<String, Long> lastSeen = Map.of();
  private Map<String, Member> members = Map.of();
  private String self = "";
  private long incarnation;
  private long seq;
  private volatile @Nullable Mac mac;
  private @Nullable SecretKeySpec key;
  private Timer timer = Timer.NONE;
  private boolean closed;

  private LoadExchange(Fleet fleet, EventLoopGroup group, Channel channel, long intervalNanos, long staleNanos,
      ClusterMetrics metrics) {
    this.fleet = fleet;
    this.group = group;
    this.channel = channel;
    this.loop = EventLoopScheduler.of(channel.eventLoop());
    this.intervalNanos = intervalNanos;
    this.staleNanos = staleNanos;
    this.metrics = metrics;
  }

  /** Binds a UDP port on {@code host} (any free one) on an event loop of its own, and starts sending. */
  static LoadExchange start(Fleet fleet, String host, double intervalS, int leaseTtlS, ClusterMetrics metrics) {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      Holder holder = new Holder();
      Channel ch = new Bootstrap().group(group).channel(NioDatagramChannel.class)
          .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
              LoadExchange x = holder.exchange;
              if (x != null) {
                x.received(packet.content());
              }
            }
          })
          .bind(new InetSocketAddress(host, 0)).syncUninterruptibly().channel();
      LoadExchange x = new LoadExchange(fleet, group, ch, Math.max(1_000_000L, Math.round(intervalS * 1e9)),
          TimeUnit.SECONDS.toNanos(leaseTtlS), metrics);
      holder.exchange = x;
      x.loop.execute(x::schedule);
      return x;
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    }
  }

  private static final class Holder {
    volatile @Nullable LoadExchange exchange;
  }

  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** The fleet's datagram key, from {@code secret} in etcd. */
  void secret(String base64) {
    try {
      byte[] k = Base64.getDecoder().decode(base64.trim());
      if (k.length < 16) {
        log.warn("cluster: the load key in etcd is too short; load exchange stays off");
        return;
      }
      SecretKeySpec spec = new SecretKeySpec(k, "HmacSHA256");
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(spec);
      loop.execute(() -> {
        key = spec;
        mac = m;
      });
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      log.warn("cluster: the load key in etcd cannot be used ({}); load exchange stays off", e.getClass().getSimpleName());
    }
  }

  /** The live members, this replica's name and (through its member record) its incarnation. */
  void members(Map<String, Member> live, String selfName) {
    loop.execute(() -> {
      members = live;
      self = selfName;
      Member me = live.get(selfName);
      incarnation = me == null ? 0 : me.lease();
      if (peers.keySet().removeIf(p -> !live.containsKey(p) || live.get(p).lease() != peers.get(p).incarnation())) {
        publishSums();
      }
    });
  }

  /** Seconds since each peer's last datagram, for {@code /narwhal/state}. */
  Map<String, Object> ages() {
    Map<String, Object> out = new TreeMap<>();
    long now = loop.nanoTime();
    lastSeen.forEach((name, at) -> out.put(name, Math.round((now - at) / 1e6) / 1000.0));
    return out;
  }

  private void schedule() {
    if (!closed) {
      timer = loop.schedule(this::tick, intervalNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void tick() {
    if (closed) {
      return;
    }
    try {
      long now = loop.nanoTime();
      if (peers.values().removeIf(p -> now - p.atNanos() > staleNanos)) {
        publishSums();
      }
      send();
    } catch (RuntimeException e) {
      log.warn("cluster: load exchange tick failed", e);
    }
    schedule();
  }

  private void send() {
    Mac m = mac;
    if (m == null || incarnation == 0 || members.size() < 2) {
      return;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("r", self);
    body.put("i", incarnation);
    body.put("s", ++seq);
    Map<String, Object> work = new LinkedHashMap<>();
    for (EngineState e : fleet.engines()) {
      PeerWork w = e.ownWork();
      if (!w.isEmpty()) {
        work.put(e.iid(), new long[] {w.prefill(), w.decode(), w.prefillTokens(), w.prefillTokenSquares(),
            w.decodeTokens()});
      }
    }
    body.put("e", work);
    Map<String, Object> quarantined = new LinkedHashMap<>();
    long now = loop.nanoTime();
    for (EngineState e : fleet.engines()) {
      long left = e.quarantineRemainingNanos(now);
      if (left > 0) {
        quarantined.put(e.iid(), left / 1_000_000);
      }
    }
    if (!quarantined.isEmpty()) {
      body.put("q", quarantined);
    }
    Arrivals a = fleet.arrivals().ownTotal();
    body.put("a", new long[] {a.count(), a.promptTokens(), a.wantedTokens()});
    byte[] json = ClusterJson.write(body).getBytes(StandardCharsets.UTF_8);
    byte[] sig = m.doFinal(json);
    for (Member peer : members.values()) {
      if (peer.name().equals(self) || peer.loadPort() == 0) {
        continue;
      }
      ByteBuf buf = Unpooled.buffer(sig.length + json.length).writeBytes(sig).writeBytes(json);
      channel.writeAndFlush(new DatagramPacket(buf, new InetSocketAddress(peer.host(), peer.loadPort())));
      metrics.packet("sent");
    }
  }

  private void received(ByteBuf content) {
    Mac m = mac;
    int n = content.readableBytes();
    if (m == null || n <= MAC_BYTES || n > MAX_DATAGRAM) {
      metrics.packet("rejected");
      return;
    }
    byte[] sig = new byte[MAC_BYTES];
    content.readBytes(sig);
    byte[] json = new byte[n - MAC_BYTES];
    content.readBytes(json);
    if (!MessageDigest.isEqual(sig, m.doFinal(json))) {
      metrics.packet("rejected");
      return;
    }
    JsonNode v = ClusterJson.object(new String(json, StandardCharsets.UTF_8));
    String from = v == null ? null : ClusterJson.text(v, "r");
    Member member = from == null ? null : members.get(from);
    long inc = v == null ? 0 : ClusterJson.number(v, "i", 0);
    long s = v == null ? 0 : ClusterJson.number(v, "s", 0);
    PeerLoad before = from == null ? null : peers.get(from);
    if (member == null || from.equals(self) || member.lease() != inc
        || (before != null && before.incarnation() == inc && s <= before.seq())) {
      metrics.packet("rejected");
      return;
    }
    Map<String, PeerWork> work = new HashMap<>();
    JsonNode e = v.get("e");
    if (e != null && e.isObject()) {
      e.fields().forEachRemaining(f -> {
        EngineState engine = fleet.get(f.getKey());
        JsonNode w = f.getValue();
        if (engine != null && w.isArray() && w.size() == 5) {
          work.put(f.getKey(), new PeerWork((int) Math.min(Integer.MAX_VALUE, w.get(0).asLong()),
              (int) Math.min(Integer.MAX_VALUE, w.get(1).asLong()), w.get(2).asLong(), w.get(3).asLong(),
              w.get(4).asLong()));
        }
      });
    }
    JsonNode q = v.get("q");
    if (q != null && q.isObject()) {
      long now = loop.nanoTime();
      q.fields().forEachRemaining(f -> {
        EngineState engine = fleet.get(f.getKey());
        long ms = f.getValue().canConvertToLong() ? f.getValue().asLong() : 0;
        // A peer's quarantine, bounded: a crafted value must not keep an engine out for long.
        if (engine != null && ms > 0) {
          engine.quarantineUntil(now + Math.min(ms, MAX_QUARANTINE_MS) * 1_000_000);
        }
      });
    }
    JsonNode arr = v.get("a");
    Arrivals totals = arr != null && arr.isArray() && arr.size() == 3
        ? new Arrivals(Math.max(0, arr.get(0).asLong()), Math.max(0, arr.get(1).asLong()),
            Math.max(0, arr.get(2).asLong()))
        : Arrivals.NONE;
    if (before != null && before.incarnation() == inc) {
      Arrivals prev = before.arrivals();
      fleet.arrivals().addPeers(new Arrivals(Math.max(0, totals.count() - prev.count()),
          Math.max(0, totals.promptTokens() - prev.promptTokens()),
          Math.max(0, totals.wantedTokens() - prev.wantedTokens())));
    }
    peers.put(from, new PeerLoad(inc, s, work, totals, loop.nanoTime()));
    metrics.packet("received");
    publishSums();
  }

  /** Sets every engine's peer work to the sum of the peers' latest datagrams. */
  private void publishSums() {
    Map<String, Long> seen = new HashMap<>();
    peers.forEach((name, p) -> seen.put(name, p.atNanos()));
    lastSeen = Map.copyOf(seen);
    for (EngineState engine : fleet.engines()) {
      PeerWork sum = PeerWork.NONE;
      for (PeerLoad p : peers.values()) {
        PeerWork w = p.work().get(engine.iid());
        if (w != null) {
          sum = sum.plus(w);
        }
      }
      if (!sum.equals(engine.peerWork())) {
        engine.peerWork(sum);
      }
    }
  }

  @Override
  public void close() {
    loop.execute(() -> {
      closed = true;
      timer.cancel();
      peers.clear();
      publishSums();
    });
    channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
