package narwhal.config;

import java.util.Objects;

/**
 * The {@code engine} section: how the router talks to every engine.
 *
 * @param firstTokenTimeoutS from before the decode connect to the first generated token
 * @param firstTokenCalibrationPath a file of calibrated first-token timeouts, or "" for none
 * @param decodeReadTimeoutS the longest silence between decode stream chunks after the first token;
 *     0 leaves only the request deadline
 * @param tokenize whether the router asks an engine for an exact prompt token count
 * @param tokenizeTimeoutS the exact-count call's timeout
 * @param charsPerToken the estimate used when no exact count is available
 * @param connectTimeoutS how long opening a connection to an engine may take
 * @param poolTimeoutS how long a request may wait for a pooled engine connection
 * @param healthTimeoutS the health check's timeout
 * @param controlConnections connections kept for control traffic; 0 means max(4, 2·engines)
 * @param engineApiKeyEnv the environment variable holding the engines' bearer token, or ""
 * @param engineApiKey that variable's value, read once when the fleet file is parsed; sent as
 *     {@code Authorization: Bearer ...} on every engine request. A code-built config sets both with
 *     {@link #withEngineApiKey}
 * @param connector the KV connector; only {@code nixl}
 * @param dialect the engines' wire dialect; only {@code vllm} unless more are registered
 */
public record EngineConfig(
    double firstTokenTimeoutS,
    String firstTokenCalibrationPath,
    double decodeReadTimeoutS,
    boolean tokenize,
    double tokenizeTimeoutS,
    double charsPerToken,
    double connectTimeoutS,
    double poolTimeoutS,
    double healthTimeoutS,
    int controlConnections,
    String engineApiKeyEnv,
    EngineApiKey engineApiKey,
    String connector,
    String dialect) {

  public static final String CONNECTOR_NIXL = "nixl";
  public static final String DIALECT_VLLM = "vllm";

  public EngineConfig {
    Objects.requireNonNull(firstTokenCalibrationPath, "firstTokenCalibrationPath");
    Objects.requireNonNull(engineApiKeyEnv, "engineApiKeyEnv");
    Objects.requireNonNull(engineApiKey, "engineApiKey");
    Objects.requireNonNull(connector, "connector");
    Objects.requireNonNull(dialect, "dialect");
  }

  /** A config without a resolved key ({@link EngineApiKey#none()}). */
  public EngineConfig(
      double firstTokenTimeoutS,
      String firstTokenCalibrationPath,
      double decodeReadTimeoutS,
      boolean tokenize,
      double tokenizeTimeoutS,
      double charsPerToken,
      double connectTimeoutS,
      double poolTimeoutS,
      double healthTimeoutS,
      int controlConnections,
      String engineApiKeyEnv,
      String connector,
      String dialect) {
    this(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS,
        controlConnections, engineApiKeyEnv, EngineApiKey.none(), connector, dialect);
  }

  public static EngineConfig defaults() {
    return new EngineConfig(
        2.5, "", 60.0, true, 2.0, 3.8, 10.0, 5.0, 5.0, 0, "", CONNECTOR_NIXL, DIALECT_VLLM);
  }

  public EngineConfig withFirstTokenTimeoutS(double value) {
    return new EngineConfig(
        value, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize, tokenizeTimeoutS,
        charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS, controlConnections,
        engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  public EngineConfig withDecodeReadTimeoutS(double value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, value, tokenize, tokenizeTimeoutS,
        charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS, controlConnections,
        engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  /** Turns exact token counting on or off, with its timeout. */
  public EngineConfig withTokenize(boolean enabled, double timeoutS) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, enabled, timeoutS,
        charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS, controlConnections,
        engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  public EngineConfig withCharsPerToken(double value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, value, connectTimeoutS, poolTimeoutS, healthTimeoutS, controlConnections,
        engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  public EngineConfig withConnectTimeoutS(double value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, value, poolTimeoutS, healthTimeoutS, controlConnections,
        engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  public EngineConfig withPoolTimeoutS(double value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, value, healthTimeoutS,
        controlConnections, engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  public EngineConfig withHealthTimeoutS(double value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, value, controlConnections,
        engineApiKeyEnv, engineApiKey, connector, dialect);
  }

  /**
   * Names the key's variable, keeping whatever key is set: only the fleet file parser reads the
   * environment. Use {@link #withEngineApiKey} to set both.
   */
  public EngineConfig withEngineApiKeyEnv(String value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS,
        controlConnections, value, engineApiKey, connector, dialect);
  }

  /**
   * Sends {@code Authorization: Bearer <value>} to every engine, as if {@code engine_api_key_env}
   * named {@code env} and the environment held {@code value} (tests, embedded routers).
   */
  public EngineConfig withEngineApiKey(String env, String value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS,
        controlConnections, env, EngineApiKey.of(value), connector, dialect);
  }

  /**
   * Sets the fleet-wide dialect. Engines already built keep the dialect they resolved; rebuild them
   * (or use {@link EngineSpec#withDialect}) to follow.
   */
  public EngineConfig withDialect(String value) {
    return new EngineConfig(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS,
        controlConnections, engineApiKeyEnv, engineApiKey, connector, value);
  }
}
