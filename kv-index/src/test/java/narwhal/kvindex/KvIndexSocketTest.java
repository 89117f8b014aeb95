package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import narwhal.config.CacheConfig;
import narwhal.config.CacheEngineConfig;
import narwhal.config.CacheMode;
import narwhal.prefix.IndexTrust;
import narwhal.prefix.PromptBlocks;
import narwhal.testing.Poll;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The index over real ZeroMQ sockets, fed by a hostile publisher written here (not the
 * simulator): good events are indexed; wrong frame counts, garbage payloads and a gap with no
 * replay socket each drop the engine's index (counted by reason), the subscriber thread lives on,
 * and the index rebuilds from the next good events. Ephemeral loopback ports only.
 */
class KvIndexSocketTest {

  private static final int BS = 4;

  private static byte[] seq(long n) {
    return ByteBuffer.allocate(8).putLong(n).array();
  }

  private static void send(ZMQ.Socket pub, byte[]... frames) {
    for (int i = 0; i < frames.length; i++) {
      pub.send(frames[i], i < frames.length - 1 ? ZMQ.SNDMORE : 0);
    }
  }

  private static PromptBlocks prompt(KvIndex index, int first, int n) {
    return index.blocks(Payloads.tokens(first, n));
  }

  @Test
  void hostileMessages_dropTheIndex_andGoodEventsRebuildIt() {
    try (ZContext ctx = new ZContext()) {
      ZMQ.Socket pub = ctx.createSocket(SocketType.PUB);
      pub.setLinger(0);
      int port = pub.bindToRandomPort("tcp://127.0.0.1");
      CacheConfig config = CacheConfig.defaults().toBuilder().mode(CacheMode.EVENTS).blockSize(BS)
          .engines(Map.of("p0", new CacheEngineConfig(true, "tcp://127.0.0.1:" + port, "kv", null))).build();
      try (KvIndex index = new KvIndex(config, System::nanoTime)) {
        index.start();
        byte[] topic = "kv".getBytes(StandardCharsets.UTF_8);
        long[] n = {0};
        // PUB/SUB drops what is sent before the subscription lands: publish until it is indexed.
        Poll.until("the index follows p0", Duration.ofSeconds(20), () -> {
          send(pub, topic, seq(n[0]++), Payloads.stored(new long[] {100, 101}, null, Payloads.tokens(1, 8), BS));
          return index.cachedTokens("p0", prompt(index, 1, 9)) == 8;
        });
        assertThat(index.trust("p0")).isEqualTo(IndexTrust.EVENTS);

        send(pub, topic, new byte[] {1, 2, 3}); // two frames, a 3-byte sequence
        Poll.until("a wrong frame count drops the index", () -> index.stats("p0").drops().get(DropReason.FRAMES) == 1);
        assertThat(index.cachedTokens("p0", prompt(index, 1, 9))).isZero();

        send(pub, topic, seq(n[0]++), Payloads.stored(new long[] {100, 101}, null, Payloads.tokens(1, 8), BS));
        send(pub, topic, seq(n[0]++), new byte[] {(byte) 0xdd, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        Poll.until("garbage drops it", () -> index.stats("p0").drops().get(DropReason.MALFORMED) == 1);
        assertThat(index.cachedTokens("p0", prompt(index, 1, 9))).isZero();

        n[0] += 5; // a gap, and no replay socket to fill it
        send(pub, topic, seq(n[0]++), Payloads.stored(new long[] {200, 201}, null, Payloads.tokens(50, 8), BS));
        Poll.until("a gap without replay drops it", () -> index.stats("p0").drops().get(DropReason.GAP) == 1);
        // The message after the gap rebuilds it (applied on the index's thread after the drop is counted).
        Poll.until("the message after the gap rebuilt it", () -> index.cachedTokens("p0", prompt(index, 50, 9)) == 8);
        Map<String, Object> state = index.stateDocument(System.nanoTime());
        @SuppressWarnings("unchecked")
        Map<String, Object> p0 = (Map<String, Object>) ((Map<String, Object>) state.get("engines")).get("p0");
        assertThat(p0.get("last_drop")).isEqualTo("gap");
        assertThat(p0.get("blocks")).isEqualTo(2);
      }
    }
  }

  @Test
  void theSelfCheck_marksAnIndexThatPredictsNothing_suspect() {
    CacheConfig config = CacheConfig.defaults().toBuilder().mode(CacheMode.APPROXIMATE).blockSize(BS)
        .divergenceWindow(4).engines(Map.of("p0", new CacheEngineConfig(false, "tcp://127.0.0.1:1", "", null))).build();
    try (KvIndex index = new KvIndex(config, System::nanoTime)) {
      for (int i = 0; i < 4; i++) {
        index.checked("p0", 0, 96);
      }
      assertThat(index.trust("p0")).isEqualTo(IndexTrust.UNTRUSTED);
      assertThat(index.stats("p0").divergence()).isEqualTo(1.0);
      for (int i = 0; i < 4; i++) {
        index.checked("p0", 96, 96);
      }
      assertThat(index.trust("p0")).isEqualTo(IndexTrust.APPROXIMATE);
    }
  }
}
