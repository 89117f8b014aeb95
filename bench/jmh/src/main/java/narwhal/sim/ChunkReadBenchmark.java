package narwhal.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.openai.CompactJson;
import narwhal.openai.OpenAiStreamDecoder;
import narwhal.proto.v1.Route;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@link CompactJson} against Jackson's streaming {@code JsonParser}, per engine chunk: each reads,
 * from one whole simulated vLLM stream, the fields the router's decoder reads from every chunk
 * ({@code error} present, {@code choices[0]}: {@code index}, {@code finish_reason}, {@code
 * stop_reason} as JSON, the text ({@code text}, or {@code delta.content} and {@code delta.role}),
 * whether reasoning, tool calls or token ids were generated, and {@code usage}'s three counts).
 * Both read the whole chunk, as both must to refuse malformed JSON. The chunks are the simulator's
 * own ({@link ResponseShapes}, shaped as vllm-wire.md section 3 describes vLLM's), 34 per stream:
 * for chat the role chunk, 31 token chunks, the finish chunk (one more token) and the usage chunk;
 * for completions 32 token chunks, the finish chunk (one more token) and the usage chunk. Scores
 * are per chunk ({@link OperationsPerInvocation}), i.e. per token.
 *
 * <p>{@code compactJson} is the router's path ({@code OpenAiStreamDecoder}'s indexed read: index,
 * then member look-ups). {@code jacksonStreaming} uses the router's own configured factory (strict
 * duplicate detection, as the index also refuses duplicate keys); {@code jacksonStreamingPlain} a
 * default factory, Jackson's best case. {@code jacksonTree} (readTree) and {@code routerDecode} (the
 * decoder's whole {@code decode}, protobuf event included) are context. The setup checks that the
 * CompactJson and Jackson readers agree on every chunk, so the comparison cannot drift into
 * reading different things ({@link ChunkReaders} holds both readers). In package {@code
 * narwhal.sim} to use the simulator's package-private chunk shapes.
 *
 * <p>Run: {@code bench/run.sh jmh ChunkReadBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class ChunkReadBenchmark {

  private static final int TOKENS = 32;
  /** Chunks per stream, the same for both routes (chat has a role chunk, completions one more token). */
  private static final int CHUNKS = TOKENS + 2;

  @Param({"completions", "chat"})
  public String route;

  private boolean chat;
  private String[] chunks;
  private final CompactJson index = new CompactJson();
  private final JsonFactory routerFactory = narwhal.openai.Json.mapper().getFactory();
  private final JsonFactory plainFactory = new JsonFactory();
  private final ChunkReaders.Fields fields = new ChunkReaders.Fields();
  private OpenAiStreamDecoder decoder;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    chat = route.equals("chat");
    chunks = stream(chat ? GenerationEndpoint.CHAT : GenerationEndpoint.COMPLETIONS).toArray(String[]::new);
    if (chunks.length != CHUNKS) {
      throw new IllegalStateException("expected " + CHUNKS + " chunks, built " + chunks.length);
    }
    decoder = new OpenAiStreamDecoder(chat ? Route.ROUTE_CHAT_COMPLETIONS : Route.ROUTE_COMPLETIONS);
    for (String chunk : chunks) {
      ChunkReaders.Fields a = new ChunkReaders.Fields();
      ChunkReaders.Fields b = new ChunkReaders.Fields();
      if (!ChunkReaders.readCompact(index, chunk, chat, a)) {
        throw new IllegalStateException("the index refused a simulator chunk: " + chunk);
      }
      ChunkReaders.readStreaming(routerFactory, chunk, chat, b);
      if (!a.equals(b)) {
        throw new IllegalStateException("the readers disagree on " + chunk + ": " + a + " vs " + b);
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void compactJson(Blackhole bh) {
    for (String chunk : chunks) {
      bh.consume(ChunkReaders.readCompact(index, chunk, chat, fields));
      bh.consume(fields.checksum());
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void jacksonStreaming(Blackhole bh) throws IOException {
    for (String chunk : chunks) {
      ChunkReaders.readStreaming(routerFactory, chunk, chat, fields);
      bh.consume(fields.checksum());
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void jacksonStreamingPlain(Blackhole bh) throws IOException {
    for (String chunk : chunks) {
      ChunkReaders.readStreaming(plainFactory, chunk, chat, fields);
      bh.consume(fields.checksum());
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void jacksonTree(Blackhole bh) throws IOException {
    for (String chunk : chunks) {
      JsonNode tree = narwhal.openai.Json.mapper().readTree(chunk);
      bh.consume(tree.path("choices").path(0).path("text"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void routerDecode(Blackhole bh) throws Exception {
    for (String chunk : chunks) {
      bh.consume(decoder.decode(chunk));
    }
  }

  /** The simulator's chunks for one streamed response with usage, as its Generation sends them. */
  static List<String> stream(GenerationEndpoint endpoint) {
    ResponseShapes shapes = new ResponseShapes(endpoint, endpoint.idPrefix() + "0b5a7e2c9d4f41d8", 1_700_000_000L, "narwhal-sim");
    List<String> out = new ArrayList<>();
    List<String> tokens = TokenSequence.first(7L, "bench prompt", TOKENS + 1);
    if (endpoint == GenerationEndpoint.CHAT) {
      out.add(SimJson.write(shapes.roleChunk(null)));
    }
    int mid = endpoint == GenerationEndpoint.CHAT ? TOKENS - 1 : TOKENS;
    for (int i = 0; i < mid; i++) {
      out.add(SimJson.write(shapes.tokenChunk(tokens.get(i), null, null)));
    }
    out.add(SimJson.write(shapes.tokenChunk(tokens.get(mid), "length", null)));
    out.add(SimJson.write(shapes.usageChunk(12, TOKENS)));
    return out;
  }
}
