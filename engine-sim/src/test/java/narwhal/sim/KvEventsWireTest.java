package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import narwhal.sim.gpu.GpuProfile;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The simulator's KV events on the wire, read with a plain ZeroMQ SUB socket and a MessagePack
 * reader, as any vLLM subscriber would: three frames, the payload's shape in both encodings, the
 * replay socket's answer; and the cached tokens its usage reports.
 */
class KvEventsWireTest {

  private static SimEngine start(KvEventsSettings.Encoding encoding) {
    GpuProfile gpu = GpuProfile.builder().kvCapacityTokens(8192).decodeBaseMillis(1).prefillBaseMillis(1).build();
    return SimEngine.start(SimOptions.builder().maxModelLen(4096).gpu(gpu)
        .prefixCaching(PrefixCaching.on(4).withEvents(
            KvEventsSettings.of("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", "kv-events").withEncoding(encoding)))
        .build());
  }

  private static final String PROMPT = "one two three four five six seven eight nine";

  @Test
  void aPrefill_publishesBlockStored_asThreeFrames_withTheMapEncoding() throws Exception {
    try (SimEngine engine = start(KvEventsSettings.Encoding.MAP); ZContext ctx = new ZContext()) {
      ZMQ.Socket sub = subscribe(ctx, engine);
      Received received = sendUntilMessage(engine, sub);
      List<byte[]> frames = received.frames();
      assertThat(frames).hasSize(3);
      assertThat(new String(frames.get(0), StandardCharsets.UTF_8)).isEqualTo("kv-events");
      assertThat(ByteBuffer.wrap(frames.get(1)).getLong()).isGreaterThanOrEqualTo(0);
      Value batch = unpack(frames.get(2));
      assertThat(batch.isArrayValue()).isTrue();
      assertThat(batch.asArrayValue().size()).isEqualTo(3); // [ts, events, data_parallel_rank]
      Value event = batch.asArrayValue().get(1).asArrayValue().get(0);
      assertThat(event.isMapValue()).isTrue();
      var map = event.asMapValue().map();
      assertThat(map.get(v("type")).asStringValue().asString()).isEqualTo("BlockStored");
      assertThat(map.get(v("block_hashes")).asArrayValue().size()).isEqualTo(2); // 9 words: 2 blocks of 4
      assertThat(map.get(v("parent_block_hash")).isNilValue()).isTrue();
      assertThat(map.get(v("token_ids")).asArrayValue().get(0).asIntegerValue().asInt())
          .isEqualTo(SimEngine.tokenIds(received.prompt())[0]);
      assertThat(map.get(v("block_size")).asIntegerValue().asInt()).isEqualTo(4);
      assertThat(map.get(v("medium")).asStringValue().asString()).isEqualTo("GPU");
    }
  }

  @Test
  void theArrayEncoding_isVllmsOlderTaggedArray() throws Exception {
    try (SimEngine engine = start(KvEventsSettings.Encoding.ARRAY); ZContext ctx = new ZContext()) {
      ZMQ.Socket sub = subscribe(ctx, engine);
      Value batch = unpack(sendUntilMessage(engine, sub).frames().get(2));
      Value event = batch.asArrayValue().get(1).asArrayValue().get(0);
      assertThat(event.isArrayValue()).isTrue();
      assertThat(event.asArrayValue().get(0).asStringValue().asString()).isEqualTo("BlockStored");
      assertThat(event.asArrayValue().get(4).asIntegerValue().asInt()).isEqualTo(4); // block_size
    }
  }

  @Test
  void theReplaySocket_answersFromTheStartSequence_thenMinusOne() throws Exception {
    try (SimEngine engine = start(KvEventsSettings.Encoding.MAP); ZContext ctx = new ZContext()) {
      ZMQ.Socket sub = subscribe(ctx, engine);
      sendUntilMessage(engine, sub);
      ZMQ.Socket dealer = ctx.createSocket(SocketType.DEALER);
      dealer.connect(engine.kvReplayEndpoint());
      dealer.sendMore(new byte[0]);
      dealer.send(ByteBuffer.allocate(8).putLong(0).array(), 0);
      dealer.setReceiveTimeOut(5000);
      List<Long> seqs = new ArrayList<>();
      while (true) {
        byte[] empty = dealer.recv(0);
        assertThat(empty).isEmpty();
        long seq = ByteBuffer.wrap(dealer.recv(0)).getLong();
        byte[] payload = dealer.recv(0);
        seqs.add(seq);
        if (seq == -1) {
          assertThat(payload).isEmpty();
          break;
        }
      }
      assertThat(seqs.get(0)).isZero();
      assertThat(seqs.get(seqs.size() - 1)).isEqualTo(-1);
    }
  }

  @Test
  void aRepeatedPrompt_reportsItsCachedTokens_inUsage() {
    try (SimEngine engine = start(KvEventsSettings.Encoding.MAP)) {
      String body = SimHttp.completion(PROMPT, 1, false);
      assertThat(SimHttp.json(SimHttp.post(engine, "/v1/completions", body).body()).path("usage")
          .path("prompt_tokens_details").isNull()).isTrue();
      var usage = SimHttp.json(SimHttp.post(engine, "/v1/completions", body).body()).path("usage");
      assertThat(usage.path("prompt_tokens_details").path("cached_tokens").asInt()).isEqualTo(8);
      assertThat(engine.prefixCachedTokens(SimEngine.tokenIds(PROMPT))).isEqualTo(8);
    }
  }

  private static ZMQ.Socket subscribe(ZContext ctx, SimEngine engine) {
    ZMQ.Socket sub = ctx.createSocket(SocketType.SUB);
    sub.subscribe("kv-events".getBytes(StandardCharsets.UTF_8));
    sub.connect(engine.kvEventsEndpoint());
    sub.setReceiveTimeOut(200);
    return sub;
  }

  /** The first KV event message a subscriber received, and the prompt whose prefill published it. */
  private record Received(String prompt, List<byte[]> frames) {}

  /**
   * PUB/SUB drops what is sent before the subscription lands: send prompts until one's events
   * arrive (for up to 30 s: a loaded machine can be slow to connect). Each prompt differs from the
   * others in its first word, so each fills blocks the cache has never held and publishes anew.
   */
  private static Received sendUntilMessage(SimEngine engine, ZMQ.Socket sub) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    for (int i = 0; System.nanoTime() < deadline; i++) {
      String prompt = i == 0 ? PROMPT : "again" + i + PROMPT.substring(PROMPT.indexOf(' '));
      SimHttp.post(engine, "/v1/completions", SimHttp.completion(prompt, 1, false));
      byte[] first = sub.recv(0);
      if (first != null) {
        List<byte[]> frames = new ArrayList<>();
        frames.add(first);
        while (sub.hasReceiveMore()) {
          frames.add(sub.recv(0));
        }
        return new Received(prompt, frames);
      }
    }
    throw new AssertionError("no KV event message arrived");
  }

  private static Value unpack(byte[] payload) throws Exception {
    try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
      return in.unpackValue();
    }
  }

  private static Value v(String s) {
    return org.msgpack.value.ValueFactory.newString(s);
  }
}
