package narwhal.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads and validates a fleet file ({@code schema: "narwhal.fleet"}, {@code schema_version: 1})
 * into a {@link FleetConfig}.
 *
 * <p>The contract: keys starting with {@code _} are comments at every level; any other key the
 * schema does not name is an error; absent keys take the documented defaults; a string value that
 * is exactly {@code "${VAR}"} is read from the environment (an unset variable is an error). Every
 * problem is collected in one pass and thrown together as a {@link FleetConfigException}, each
 * prefixed with its JSON path, e.g. {@code $.engines[1].role: must be one of prefill, decode, both,
 * got "x"}. A duplicate key or malformed JSON stops parsing at that point and is reported alone.
 *
 * <p>Stateless and thread-safe.
 */
public final class FleetFileParser {

  /** The dialects this router speaks when the caller registers no others. */
  public static final Set<String> DEFAULT_DIALECTS = Set.of(EngineConfig.DIALECT_VLLM);

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          // A key given twice would silently keep the last value; make the file say one thing.
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .build();

  private FleetFileParser() {}

  /**
   * Parses a fleet file's text.
   *
   * @param env looks up environment variables for {@code "${VAR}"} values; returns null when unset
   * @param knownDialects the wire dialects {@code engine.dialect} and {@code engines[].dialect} may
   *     name
   * @throws FleetConfigException listing every problem found
   */
  public static FleetConfig parse(
      String json, Function<String, @Nullable String> env, Set<String> knownDialects)
      throws FleetConfigException {
    JsonNode root = readTree(json);
    if (!root.isObject()) {
      throw new FleetConfigException(
          List.of(JsonPaths.ROOT + ": must be a JSON object, got " + JsonPaths.show(root)));
    }
    ParseContext ctx = new ParseContext(env, knownDialects);
    ConfigObject top = new ConfigObject((ObjectNode) root, JsonPaths.ROOT, ctx);
    checkSchema(top);
    String model = top.requiredString("model");
    HardwareConfig hardware = hardware(top);
    // The engine section first: engine entries resolve their dialect and connector from it.
    EngineConfig engine = SectionParsers.engine(top.object("engine"));
    List<EngineSpec> engines = EngineListParser.engines(top, engine);
    EngineContract contract = EngineContractParser.contract(top);
    SloConfig slo = SectionParsers.slo(top);
    ControllerConfig controller = ControlSectionParsers.controller(top.object("controller"));
    ServingConfig serving = SectionParsers.serving(top.object("serving"));
    RecoveryConfig recovery = ControlSectionParsers.recovery(top.object("recovery"));
    ProfilesConfig profiles = SectionParsers.profiles(top.object("profiles"));
    ContinuationConfig continuation = continuation(top);
    TenantsConfig tenants = TenantsParser.tenants(top);
    CacheConfig cache = CacheSectionParser.cache(top.object("cache"), engines);
    ClusterConfig cluster = ClusterParser.cluster(top);
    top.finish();
    if (!ctx.problems().isEmpty()) {
      throw new FleetConfigException(ctx.problems().errors());
    }
    return FleetConfig.of(model == null ? "" : model, engines).toBuilder()
        .hardware(hardware)
        .engineContract(contract)
        .slo(slo)
        .controller(controller)
        .serving(serving)
        .engine(engine)
        .recovery(recovery)
        .profiles(profiles)
        .continuation(continuation)
        .tenants(tenants)
        .cache(cache)
        .cluster(cluster)
        .build();
  }

  /** As {@link #parse(String, Function, Set)} with the default dialects. */
  public static FleetConfig parse(String json, Function<String, @Nullable String> env)
      throws FleetConfigException {
    return parse(json, env, DEFAULT_DIALECTS);
  }

  /**
   * Reads a fleet file with the process environment and the default dialects.
   *
   * @throws FleetConfigException when the file cannot be read or is invalid; the message names the
   *     file
   */
  public static FleetConfig read(Path file) throws FleetConfigException {
    return read(file, System::getenv, DEFAULT_DIALECTS);
  }

  /** As {@link #read(Path)} with an explicit environment and dialect set. */
  public static FleetConfig read(
      Path file, Function<String, @Nullable String> env, Set<String> knownDialects)
      throws FleetConfigException {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new FleetConfigException(
          "cannot read fleet file " + file, List.of(JsonPaths.ROOT + ": " + unreadable(file, e)));
    }
    try {
      return parse(json, env, knownDialects);
    } catch (FleetConfigException e) {
      throw new FleetConfigException("invalid fleet file " + file, e.errors());
    }
  }

  /** Why {@code file} could not be read, in words: never a bare exception class. */
  static String unreadable(Path file, IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return file.isAbsolute() ? "no such file"
          : "no such file (a relative path is read from " + Path.of("").toAbsolutePath() + ")";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (java.nio.file.Files.isDirectory(file)) {
      return "is a directory, not a fleet file";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  private static JsonNode readTree(String json) throws FleetConfigException {
    try {
      JsonNode root = MAPPER.readTree(json);
      if (root == null || root.isMissingNode()) {
        throw new FleetConfigException(List.of(JsonPaths.ROOT + ": empty document"));
      }
      return root;
    } catch (JsonProcessingException e) {
      throw new FleetConfigException(List.of(syntaxError(e)));
    }
  }

  /** A parse failure located by JSON path (from the parser's context) and by line and column. */
  private static String syntaxError(JsonProcessingException e) {
    String path = JsonPaths.ROOT;
    if (e.getProcessor() instanceof JsonParser parser) {
      path = pathOf(parser.getParsingContext());
    }
    String where =
        e.getLocation() == null
            ? ""
            : " at line "
                + e.getLocation().getLineNr()
                + ", column "
                + e.getLocation().getColumnNr();
    String detail = e.getOriginalMessage();
    if (detail.startsWith("Duplicate field")) {
      return path + ": duplicate key" + where;
    }
    return path + ": invalid JSON" + where + ": " + detail;
  }

  private static String pathOf(@Nullable JsonStreamContext context) {
    Deque<JsonStreamContext> chain = new ArrayDeque<>();
    for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
      chain.push(c);
    }
    String path = JsonPaths.ROOT;
    for (JsonStreamContext c : chain) {
      if (c.inArray()) {
        path = JsonPaths.index(path, Math.max(0, c.getCurrentIndex()));
      } else if (c.getCurrentName() != null) {
        path = JsonPaths.child(path, c.getCurrentName());
      }
    }
    return path;
  }

  private static void checkSchema(ConfigObject top) {
    JsonNode schema = top.raw("schema");
    if (schema == null) {
      top.error("schema", "required: \"" + FleetConfig.SCHEMA + "\"");
    } else if (!schema.isTextual() || !schema.textValue().equals(FleetConfig.SCHEMA)) {
      top.error("schema", "must be \"" + FleetConfig.SCHEMA + "\", got " + JsonPaths.show(schema));
    }
    JsonNode version = top.raw("schema_version");
    if (version == null) {
      top.error("schema_version", "required: " + FleetConfig.SCHEMA_VERSION);
    } else if (!version.isIntegralNumber() || version.longValue() != FleetConfig.SCHEMA_VERSION) {
      top.error(
          "schema_version",
          "must be " + FleetConfig.SCHEMA_VERSION + ", got " + JsonPaths.show(version));
    }
  }

  private static HardwareConfig hardware(ConfigObject top) {
    JsonNode raw = top.raw("hardware");
    if (raw == null || raw.isNull()) {
      return HardwareConfig.defaults();
    }
    if (!raw.isObject()) {
      top.error("hardware", "must be an object, got " + JsonPaths.show(raw));
      return HardwareConfig.defaults();
    }
    return new HardwareConfig(FreeFormJson.toMap(raw));
  }

  private static ContinuationConfig continuation(ConfigObject top) {
    JsonNode raw = top.raw("continuation");
    if (raw == null || raw.isNull()) {
      return ContinuationConfig.defaults();
    }
    return SectionParsers.continuation(top.object("continuation"));
  }
}
