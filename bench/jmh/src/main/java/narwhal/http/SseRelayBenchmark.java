package narwhal.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import narwhal.api.ResponseStart;
import narwhal.engine.http.SseEventParser;
import narwhal.spi.MalformedEventException;
import narwhal.openai.OpenAiStreamDecoder;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One relayed token, stage by stage, as the router handles it on its event loop: the engine's SSE
 * bytes are split into event data ({@link SseEventParser}), classified ({@link OpenAiStreamDecoder})
 * and re-framed for the client ({@link SseChunkWriter}, into a pooled buffer). {@code relay} is the
 * three together; {@code treeRoundTripReference} is what the relay did per token before the
 * splice path (Jackson tree in the decoder and again in the writer), kept to show the difference
 * in one run. In package {@code narwhal.http} to reach the package-private writer.
 * {@link narwhal.jmh.RelayEndToEndBenchmark} relays whole streams through the real router over
 * sockets.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class SseRelayBenchmark {

  /** vLLM's chunks as the simulated engines send them (the router asks for token ids). */
  private static final String COMPLETION_CHUNK =
      "{\"id\":\"cmpl-0b5a7e2c9d\",\"object\":\"text_completion\",\"created\":1700000000,"
          + "\"model\":\"narwhal-sim\",\"choices\":[{\"index\":0,\"text\":\" harbour\",\"logprobs\":null,"
          + "\"finish_reason\":null,\"stop_reason\":null,\"prompt_token_ids\":null,\"token_ids\":[41236]}],"
          + "\"usage\":null}";
  private static final String CHAT_CHUNK =
      "{\"id\":\"chatcmpl-0b5a7e2c9d\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
          + "\"model\":\"narwhal-sim\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" harbour\"},"
          + "\"logprobs\":null,\"finish_reason\":null,\"token_ids\":[41236]}]}";

  @Param({"completions", "chat"})
  public String route;

  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private ByteBuf engineBytes;
  private SseEventParser parser;
  private String lastData;
  private String data;
  private OpenAiStreamDecoder decoder;
  private SseChunkWriter writer;
  private ChunkView view;

  @Setup(Level.Trial)
  public void setUp() throws MalformedEventException {
    Route r = route.equals("chat") ? Route.ROUTE_CHAT_COMPLETIONS : Route.ROUTE_COMPLETIONS;
    data = r == Route.ROUTE_CHAT_COMPLETIONS ? CHAT_CHUNK : COMPLETION_CHUNK;
    engineBytes = Unpooled.directBuffer().writeBytes(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    parser = new SseEventParser(1 << 20, d -> lastData = d);
    decoder = new OpenAiStreamDecoder(r);
    writer = new SseChunkWriter(r, new ResponseStart("7f3c2a1b-0d4e", "served-model", 1_700_000_123L), false);
    view = ChunkView.of(decoder.decode(data));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engineBytes.release();
  }

  @Benchmark
  public String sseParse() throws SseEventParser.EventTooLargeException {
    parser.feed(engineBytes);
    return lastData;
  }

  @Benchmark
  public StreamEvent decode() throws MalformedEventException {
    return decoder.decode(data);
  }

  @Benchmark
  public int frame() {
    ByteBuf out = writer.frame(view, alloc);
    int n = out.readableBytes();
    out.release();
    return n;
  }

  @Benchmark
  public int relay() throws Exception {
    parser.feed(engineBytes);
    StreamEvent event = decoder.decode(lastData);
    ByteBuf out = writer.frame(ChunkView.of(event), alloc);
    int n = out.readableBytes();
    out.release();
    return n;
  }

  @Benchmark
  public int treeRoundTripReference() throws Exception {
    parser.feed(engineBytes);
    String compact = Json.mapper().readTree(lastData).toString();
    ChunkView chunk = new ChunkView(true, 0, "", null, "", null, compact, "");
    return writer.frameWithTree(chunk).length;
  }
}
