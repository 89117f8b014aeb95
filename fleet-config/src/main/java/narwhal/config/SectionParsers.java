package narwhal.config;

import static narwhal.config.NumberRange.NON_NEGATIVE;
import static narwhal.config.NumberRange.POSITIVE;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Reads the sections the request path uses ({@code serving}, {@code engine}, {@code slo}) and the
 * small {@code profiles} and {@code continuation} sections. Absent keys take the record's defaults.
 */
final class SectionParsers {

  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  private SectionParsers() {}

  static ServingConfig serving(ConfigObject s) {
    ServingConfig d = ServingConfig.defaults();
    AdmissionMode admission =
        Objects.requireNonNullElse(
            s.choice("admission", Choices.ADMISSION, false), d.admission());
    double admissionMargin = s.number("admission_margin", d.admissionMargin(), NON_NEGATIVE);
    int maxConnections = s.integer("max_connections", d.maxConnections(), 1);
    int queueCapacity = s.integer("queue_capacity", d.queueCapacity(), 0);
    double queueTimeoutS = s.number("queue_timeout_s", d.queueTimeoutS(), NON_NEGATIVE);
    int maxAttempts = s.integer("max_attempts", d.maxAttempts(), 1);
    double retryBaseS = s.number("retry_base_s", d.retryBaseS(), NON_NEGATIVE);
    double retryCapS = s.number("retry_cap_s", d.retryCapS(), NON_NEGATIVE);
    double retryBudget = s.number("retry_budget", d.retryBudget(), NON_NEGATIVE);
    double retryReplenish = s.number("retry_replenish", d.retryReplenish(), NON_NEGATIVE);
    long maxRequestBytes = s.longInteger("max_request_bytes", d.maxRequestBytes(), 1);
    long maxResponseBytes = s.longInteger("max_response_bytes", d.maxResponseBytes(), 1);
    double requestTimeoutS = s.number("request_timeout_s", d.requestTimeoutS(), POSITIVE);
    double prefillTimeoutS = s.number("prefill_timeout_s", d.prefillTimeoutS(), POSITIVE);
    double gracefulTimeoutS = s.number("graceful_timeout_s", d.gracefulTimeoutS(), NON_NEGATIVE);
    double headerTimeoutS = s.number("header_timeout_s", d.headerTimeoutS(), NON_NEGATIVE);
    double idleTimeoutS = s.number("idle_timeout_s", d.idleTimeoutS(), NON_NEGATIVE);
    int maxClientConnections = s.integer("max_client_connections", d.maxClientConnections(), 1);
    ServingTlsConfig tls = TlsSectionParsers.serving(s);

    if (queueCapacity > 0 && queueTimeoutS <= 0 && s.isValid("queue_timeout_s")) {
      s.error(
          "queue_timeout_s",
          "must be > 0 when queue_capacity is > 0 (queue_capacity is " + queueCapacity + ")");
    }
    if (retryBaseS > retryCapS && s.isValid("retry_base_s") && s.isValid("retry_cap_s")) {
      s.error(
          "retry_base_s",
          "must be <= retry_cap_s ("
              + JsonPaths.show(retryBaseS)
              + " > "
              + JsonPaths.show(retryCapS)
              + ")");
    }
    if (maxClientConnections < maxConnections
        && s.isValid("max_client_connections") && s.isValid("max_connections")) {
      // Each in-flight HTTP request needs its own connection: seats past the cap are unreachable.
      s.error(
          "max_client_connections",
          "must be >= max_connections (" + maxClientConnections + " < " + maxConnections + ")");
    }
    s.finish();
    return d.toBuilder()
        .admission(admission)
        .admissionMargin(admissionMargin)
        .maxConnections(maxConnections)
        .queueCapacity(queueCapacity)
        .queueTimeoutS(queueTimeoutS)
        .maxAttempts(maxAttempts)
        .retryBaseS(retryBaseS)
        .retryCapS(retryCapS)
        .retryBudget(retryBudget)
        .retryReplenish(retryReplenish)
        .maxRequestBytes(maxRequestBytes)
        .maxResponseBytes(maxResponseBytes)
        .requestTimeoutS(requestTimeoutS)
        .prefillTimeoutS(prefillTimeoutS)
        .gracefulTimeoutS(gracefulTimeoutS)
        .headerTimeoutS(headerTimeoutS)
        .idleTimeoutS(idleTimeoutS)
        .maxClientConnections(maxClientConnections)
        .tls(tls)
        .build();
  }

  static EngineConfig engine(ConfigObject e) {
    EngineConfig d = EngineConfig.defaults();
    double firstTokenTimeoutS =
        e.number("first_token_timeout_s", d.firstTokenTimeoutS(), POSITIVE);
    String calibrationPath =
        e.string("first_token_calibration_path", d.firstTokenCalibrationPath());
    double decodeReadTimeoutS =
        e.number("decode_read_timeout_s", d.decodeReadTimeoutS(), NON_NEGATIVE);
    boolean tokenize = e.bool("tokenize", d.tokenize());
    double tokenizeTimeoutS = e.number("tokenize_timeout_s", d.tokenizeTimeoutS(), POSITIVE);
    double charsPerToken = e.number("chars_per_token", d.charsPerToken(), POSITIVE);
    double connectTimeoutS = e.number("connect_timeout_s", d.connectTimeoutS(), POSITIVE);
    double poolTimeoutS = e.number("pool_timeout_s", d.poolTimeoutS(), POSITIVE);
    double healthTimeoutS = e.number("health_timeout_s", d.healthTimeoutS(), POSITIVE);
    int controlConnections = e.integer("control_connections", d.controlConnections(), 0);
    String engineApiKeyEnv = e.string("engine_api_key_env", d.engineApiKeyEnv());
    EngineApiKey engineApiKey = engineApiKey(e, engineApiKeyEnv);
    String connector =
        Objects.requireNonNullElse(e.choice("connector", Choices.CONNECTORS, false), d.connector());
    String dialect =
        Objects.requireNonNullElse(e.choice("dialect", dialects(e), false), d.dialect());
    EngineTlsConfig tls = TlsSectionParsers.engine(e);
    e.finish();
    return d.toBuilder()
        .firstTokenTimeoutS(firstTokenTimeoutS)
        .firstTokenCalibrationPath(calibrationPath)
        .decodeReadTimeoutS(decodeReadTimeoutS)
        .tokenize(tokenize)
        .tokenizeTimeoutS(tokenizeTimeoutS)
        .charsPerToken(charsPerToken)
        .connectTimeoutS(connectTimeoutS)
        .poolTimeoutS(poolTimeoutS)
        .healthTimeoutS(healthTimeoutS)
        .controlConnections(controlConnections)
        .engineApiKeyEnv(engineApiKeyEnv)
        .engineApiKey(engineApiKey)
        .connector(connector)
        .dialect(dialect)
        .tls(tls)
        .build();
  }

  /**
   * The engines' API key, read here, once, from the variable {@code engine_api_key_env} names: a
   * key that went missing would otherwise surface only as every engine answering 401. The
   * problems recorded name the variable, never a value.
   */
  private static EngineApiKey engineApiKey(ConfigObject e, String env) {
    String key = "engine_api_key_env";
    if (env.isEmpty() || !e.isValid(key)) {
      return EngineApiKey.none();
    }
    if (!ParseContext.isVariableName(env)) {
      e.error(key, "must name an environment variable (letters, digits and _, not starting with a "
          + "digit), got \"" + env + "\"");
      return EngineApiKey.none();
    }
    String value = e.context().environment(env);
    String fix = ": export the engines' API key (their --api-key) in " + env
        + ", or set engine_api_key_env to \"\" if the engines need none";
    if (value == null) {
      e.error(key, "environment variable " + env + " is not set" + fix);
      return EngineApiKey.none();
    }
    if (value.isEmpty()) {
      e.error(key, "environment variable " + env + " is empty" + fix);
      return EngineApiKey.none();
    }
    try {
      return EngineApiKey.of(value);
    } catch (IllegalArgumentException ex) {
      e.error(key, "environment variable " + env + " cannot be sent as a bearer token: " + ex.getMessage());
      return EngineApiKey.none();
    }
  }

  /** The dialects this router can speak, as choices for a {@code dialect} key. */
  static Map<String, String> dialects(ConfigObject o) {
    return Choices.identity(
        o.context().knownDialects().stream().sorted().toArray(String[]::new));
  }

  /**
   * The required {@code slo} section. Problems are recorded; the code-built defaults stand in for
   * what is missing so parsing can go on.
   */
  static SloConfig slo(ConfigObject top) {
    if (top.raw("slo") == null) {
      top.error("slo", "required: an object with ttft_s and tpot_s");
      return SloConfig.defaults();
    }
    ConfigObject s = top.object("slo");
    if (!top.isValid("slo")) {
      return SloConfig.defaults();
    }
    Double ttftS = s.requiredNumber("ttft_s", POSITIVE);
    Double tpotS = s.requiredNumber("tpot_s", POSITIVE);
    s.finish();
    SloConfig d = SloConfig.defaults();
    return d.toBuilder()
        .ttftS(ttftS == null ? d.ttftS() : ttftS)
        .tpotS(tpotS == null ? d.tpotS() : tpotS)
        .build();
  }

  static ProfilesConfig profiles(ConfigObject p) {
    ProfilesConfig d = ProfilesConfig.defaults();
    String path = p.string("path", d.path());
    double fit = p.number("max_decode_fit_mape", d.maxDecodeFitMape(), POSITIVE);
    double cv = p.number("max_decode_cv_mape", d.maxDecodeCvMape(), POSITIVE);
    p.finish();
    return new ProfilesConfig(path, fit, cv);
  }

  static ContinuationConfig continuation(ConfigObject c) {
    ContinuationConfig d = ContinuationConfig.defaults();
    boolean enabled = c.bool("enabled", d.enabled());
    int maxAttempts = c.integer("max_attempts", d.maxAttempts(), 1);
    String digest = c.optionalString("qualification_sha256");
    if (digest != null && !SHA256_HEX.matcher(digest).matches()) {
      c.error("qualification_sha256", "must be 64 lowercase hex digits, got \"" + digest + "\"");
      digest = null;
    }
    c.finish();
    return new ContinuationConfig(enabled, maxAttempts, digest);
  }
}
