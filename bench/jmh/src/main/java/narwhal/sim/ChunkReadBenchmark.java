package narwhal.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import narwhal.openai.CompactJson;
import narwhal.openai.OpenAiStreamDecoder;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;
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
 * {@link CompactJson} against Jackson's streaming {@link JsonParser}, per engine chunk: each reads,
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
 * reading different things. In package {@code narwhal.sim} to use the simulator's package-private
 * chunk shapes.
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
  private final Fields fields = new Fields();
  private OpenAiStreamDecoder decoder;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    chat = route.equals("chat");
    chunks = stream(chat ? Endpoint.CHAT : Endpoint.COMPLETIONS).toArray(String[]::new);
    if (chunks.length != CHUNKS) {
      throw new IllegalStateException("expected " + CHUNKS + " chunks, built " + chunks.length);
    }
    decoder = new OpenAiStreamDecoder(chat ? Route.ROUTE_CHAT_COMPLETIONS : Route.ROUTE_COMPLETIONS);
    for (String chunk : chunks) {
      Fields a = new Fields();
      Fields b = new Fields();
      if (!readCompact(index, chunk, chat, a)) {
        throw new IllegalStateException("the index refused a simulator chunk: " + chunk);
      }
      readStreaming(routerFactory, chunk, chat, b);
      if (!a.equals(b)) {
        throw new IllegalStateException("the readers disagree on " + chunk + ": " + a + " vs " + b);
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void compactJson(Blackhole bh) {
    for (String chunk : chunks) {
      bh.consume(readCompact(index, chunk, chat, fields));
      bh.consume(fields.checksum());
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void jacksonStreaming(Blackhole bh) throws IOException {
    for (String chunk : chunks) {
      readStreaming(routerFactory, chunk, chat, fields);
      bh.consume(fields.checksum());
    }
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void jacksonStreamingPlain(Blackhole bh) throws IOException {
    for (String chunk : chunks) {
      readStreaming(plainFactory, chunk, chat, fields);
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
  static List<String> stream(Endpoint endpoint) {
    ResponseShapes shapes = new ResponseShapes(endpoint, endpoint.idPrefix() + "0b5a7e2c9d4f41d8", 1_700_000_000L, "narwhal-sim");
    List<String> out = new ArrayList<>();
    List<String> tokens = TokenSequence.first(7L, "bench prompt", TOKENS + 1);
    if (endpoint == Endpoint.CHAT) {
      out.add(Json.write(shapes.roleChunk(null)));
    }
    int mid = endpoint == Endpoint.CHAT ? TOKENS - 1 : TOKENS;
    for (int i = 0; i < mid; i++) {
      out.add(Json.write(shapes.tokenChunk(tokens.get(i), null, null)));
    }
    out.add(Json.write(shapes.tokenChunk(tokens.get(mid), "length", null)));
    out.add(Json.write(shapes.usageChunk(12, TOKENS)));
    return out;
  }

  /** The fields the router's decoder reads from one chunk. */
  static final class Fields {
    boolean error;
    boolean hasChoice;
    long index;
    @Nullable String finish;
    String stopJson = "";
    String text = "";
    String role = "";
    boolean generated;
    long prompt;
    long completion;
    long total;

    void reset() {
      error = false;
      hasChoice = false;
      index = 0;
      finish = null;
      stopJson = "";
      text = "";
      role = "";
      generated = false;
      prompt = 0;
      completion = 0;
      total = 0;
    }

    long checksum() {
      return index + text.length() + role.length() + stopJson.length() + (finish == null ? 0 : finish.length())
          + (generated ? 1 : 0) + (error ? 2 : 0) + (hasChoice ? 4 : 0) + prompt + completion + total;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Fields f && error == f.error && hasChoice == f.hasChoice && index == f.index
          && Objects.equals(finish, f.finish) && stopJson.equals(f.stopJson) && text.equals(f.text)
          && role.equals(f.role) && generated == f.generated && prompt == f.prompt
          && completion == f.completion && total == f.total;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(checksum());
    }

    @Override
    public String toString() {
      return "Fields[error=" + error + ", choice=" + hasChoice + ", index=" + index + ", finish=" + finish
          + ", stop=" + stopJson + ", text=" + text + ", role=" + role + ", generated=" + generated
          + ", usage=" + prompt + "/" + completion + "/" + total + "]";
    }
  }

  // ------------------------------------------------------------------ CompactJson: as OpenAiStreamDecoder.decodeIndexed

  static boolean readCompact(CompactJson ix, String chunk, boolean chat, Fields out) {
    out.reset();
    if (!ix.index(chunk)) {
      return false;
    }
    int root = ix.root();
    int error = ix.member(root, "error");
    out.error = error != CompactJson.NONE && ix.kind(error) != CompactJson.NULL;
    int usage = ix.member(root, "usage");
    if (usage != CompactJson.NONE && ix.kind(usage) == CompactJson.OBJECT) {
      out.prompt = count(ix, ix.member(usage, "prompt_tokens"));
      out.completion = count(ix, ix.member(usage, "completion_tokens"));
      out.total = count(ix, ix.member(usage, "total_tokens"));
    }
    int choices = ix.member(root, "choices");
    int choice = choices == CompactJson.NONE ? CompactJson.NONE : ix.first(choices);
    if (choice == CompactJson.NONE || ix.kind(choice) != CompactJson.OBJECT) {
      return true;
    }
    out.hasChoice = true;
    int indexNode = ix.member(choice, "index");
    out.index = indexNode == CompactJson.NONE ? 0 : ix.longValue(indexNode, Long.MIN_VALUE);
    int finish = ix.member(choice, "finish_reason");
    if (finish != CompactJson.NONE && ix.kind(finish) == CompactJson.STRING) {
      out.finish = ix.string(finish);
    }
    int stop = ix.member(choice, "stop_reason");
    out.stopJson = stop != CompactJson.NONE && ix.kind(stop) != CompactJson.NULL ? ix.json(stop) : "";
    if (chat) {
      int delta = ix.member(choice, "delta");
      out.text = string(ix, ix.member(delta, "content"));
      out.role = string(ix, ix.member(delta, "role"));
      out.generated = !out.text.isEmpty()
          || nonEmptyString(ix, ix.member(delta, "reasoning_content"))
          || nonEmptyString(ix, ix.member(delta, "reasoning"))
          || nonEmptyArray(ix, ix.member(delta, "tool_calls"))
          || nonEmptyArray(ix, ix.member(choice, "token_ids"));
    } else {
      out.text = string(ix, ix.member(choice, "text"));
      out.generated = !out.text.isEmpty() || nonEmptyArray(ix, ix.member(choice, "token_ids"));
    }
    return true;
  }

  private static long count(CompactJson ix, int node) {
    return node == CompactJson.NONE ? 0 : ix.longValue(node, -1);
  }

  private static String string(CompactJson ix, int node) {
    return node != CompactJson.NONE && ix.kind(node) == CompactJson.STRING ? ix.string(node) : "";
  }

  private static boolean nonEmptyString(CompactJson ix, int node) {
    return node != CompactJson.NONE && ix.kind(node) == CompactJson.STRING && !ix.isEmptyString(node);
  }

  private static boolean nonEmptyArray(CompactJson ix, int node) {
    return node != CompactJson.NONE && ix.kind(node) == CompactJson.ARRAY && ix.first(node) != CompactJson.NONE;
  }

  // ------------------------------------------------------------------ Jackson streaming: the same fields

  static void readStreaming(JsonFactory factory, String chunk, boolean chat, Fields out) throws IOException {
    out.reset();
    try (JsonParser p = factory.createParser(chunk)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not an object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "error" -> {
            out.error = value != JsonToken.VALUE_NULL;
            p.skipChildren();
          }
          case "choices" -> readChoices(p, value, chat, out);
          case "usage" -> readUsage(p, value, out);
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new IOException("trailing content");
      }
    }
  }

  private static void readChoices(JsonParser p, JsonToken value, boolean chat, Fields out) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    JsonToken element = p.nextToken();
    if (element == JsonToken.START_OBJECT) {
      out.hasChoice = true;
      readChoice(p, chat, out);
      element = p.nextToken();
    }
    while (element != JsonToken.END_ARRAY) {
      p.skipChildren();
      element = p.nextToken();
    }
  }

  private static void readChoice(JsonParser p, boolean chat, Fields out) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "index" -> out.index = value == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : Long.MIN_VALUE;
        case "finish_reason" -> out.finish = value == JsonToken.VALUE_STRING ? p.getText() : null;
        case "stop_reason" -> out.stopJson = jsonText(p, value);
        case "text" -> {
          if (!chat) {
            out.text = value == JsonToken.VALUE_STRING ? p.getText() : "";
            out.generated |= !out.text.isEmpty();
          }
          p.skipChildren();
        }
        case "delta" -> {
          if (chat && value == JsonToken.START_OBJECT) {
            readDelta(p, out);
          } else {
            p.skipChildren();
          }
        }
        case "token_ids" -> out.generated |= nonEmptyArray(p, value);
        default -> p.skipChildren();
      }
    }
  }

  private static void readDelta(JsonParser p, Fields out) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "content" -> {
          out.text = value == JsonToken.VALUE_STRING ? p.getText() : "";
          out.generated |= !out.text.isEmpty();
        }
        case "role" -> out.role = value == JsonToken.VALUE_STRING ? p.getText() : "";
        case "reasoning_content", "reasoning" ->
            out.generated |= value == JsonToken.VALUE_STRING && p.getTextLength() > 0;
        case "tool_calls" -> out.generated |= nonEmptyArray(p, value);
        default -> p.skipChildren();
      }
    }
  }

  private static void readUsage(JsonParser p, JsonToken value, Fields out) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      long n = v == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : -1;
      switch (name) {
        case "prompt_tokens" -> out.prompt = n;
        case "completion_tokens" -> out.completion = n;
        case "total_tokens" -> out.total = n;
        default -> p.skipChildren();
      }
    }
  }

  /** True for a non-empty array; leaves the parser after the value. */
  private static boolean nonEmptyArray(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      p.skipChildren();
      return false;
    }
    boolean nonEmpty = p.nextToken() != JsonToken.END_ARRAY;
    if (nonEmpty) {
      p.skipChildren();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        p.skipChildren();
      }
    }
    return nonEmpty;
  }

  /** A scalar's JSON text as the chunk spells it ("" for null); stop_reason is a string or an int. */
  private static String jsonText(JsonParser p, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return "";
    }
    if (value == JsonToken.VALUE_STRING) {
      return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(p.getText())) + "\"";
    }
    if (value.isScalarValue()) {
      return p.getText();
    }
    p.skipChildren();
    return "{}";
  }
}
