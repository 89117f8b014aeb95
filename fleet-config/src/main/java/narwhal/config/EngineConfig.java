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
 * @param tls how {@code https://} engines are verified and which client certificate they are shown
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
    String dialect,
    EngineTlsConfig tls) {

  public static final String CONNECTOR_NIXL = "nixl";
  public static final String DIALECT_VLLM = "vllm";

  public EngineConfig {
    Objects.requireNonNull(firstTokenCalibrationPath, "firstTokenCalibrationPath");
    Objects.requireNonNull(engineApiKeyEnv, "engineApiKeyEnv");
    Objects.requireNonNull(engineApiKey, "engineApiKey");
    Objects.requireNonNull(connector, "connector");
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(tls, "tls");
  }

  /** A config with the default {@code engine.tls}: the JVM's trust store, host names verified. */
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
      EngineApiKey engineApiKey,
      String connector,
      String dialect) {
    this(
        firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
        tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS,
        controlConnections, engineApiKeyEnv, engineApiKey, connector, dialect, EngineTlsConfig.defaults());
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

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public EngineConfig withFirstTokenTimeoutS(double value) {
    return toBuilder().firstTokenTimeoutS(value).build();
  }

  public EngineConfig withDecodeReadTimeoutS(double value) {
    return toBuilder().decodeReadTimeoutS(value).build();
  }

  /** Turns exact token counting on or off, with its timeout. */
  public EngineConfig withTokenize(boolean enabled, double timeoutS) {
    return toBuilder().tokenize(enabled).tokenizeTimeoutS(timeoutS).build();
  }

  public EngineConfig withCharsPerToken(double value) {
    return toBuilder().charsPerToken(value).build();
  }

  public EngineConfig withConnectTimeoutS(double value) {
    return toBuilder().connectTimeoutS(value).build();
  }

  public EngineConfig withPoolTimeoutS(double value) {
    return toBuilder().poolTimeoutS(value).build();
  }

  public EngineConfig withHealthTimeoutS(double value) {
    return toBuilder().healthTimeoutS(value).build();
  }

  /**
   * Names the key's variable, keeping whatever key is set: only the fleet file parser reads the
   * environment. Use {@link #withEngineApiKey} to set both.
   */
  public EngineConfig withEngineApiKeyEnv(String value) {
    return toBuilder().engineApiKeyEnv(value).build();
  }

  /**
   * Sends {@code Authorization: Bearer <value>} to every engine, as if {@code engine_api_key_env}
   * named {@code env} and the environment held {@code value} (tests, embedded routers).
   */
  public EngineConfig withEngineApiKey(String env, String value) {
    return toBuilder().engineApiKeyEnv(env).engineApiKey(EngineApiKey.of(value)).build();
  }

  /**
   * Sets the fleet-wide dialect. Engines already built keep the dialect they resolved; rebuild them
   * (or use {@link EngineSpec#withDialect}) to follow.
   */
  public EngineConfig withDialect(String value) {
    return toBuilder().dialect(value).build();
  }

  public EngineConfig withTls(EngineTlsConfig value) {
    return toBuilder().tls(value).build();
  }

  /**
   * Builds an {@link EngineConfig} by name rather than by position; {@link #build} applies the
   * record's checks. Start from {@link EngineConfig#defaults} with {@link #toBuilder}.
   */
  public static final class Builder {
    private double firstTokenTimeoutS;
    private String firstTokenCalibrationPath;
    private double decodeReadTimeoutS;
    private boolean tokenize;
    private double tokenizeTimeoutS;
    private double charsPerToken;
    private double connectTimeoutS;
    private double poolTimeoutS;
    private double healthTimeoutS;
    private int controlConnections;
    private String engineApiKeyEnv;
    private EngineApiKey engineApiKey;
    private String connector;
    private String dialect;
    private EngineTlsConfig tls;

    private Builder(EngineConfig from) {
      firstTokenTimeoutS = from.firstTokenTimeoutS;
      firstTokenCalibrationPath = from.firstTokenCalibrationPath;
      decodeReadTimeoutS = from.decodeReadTimeoutS;
      tokenize = from.tokenize;
      tokenizeTimeoutS = from.tokenizeTimeoutS;
      charsPerToken = from.charsPerToken;
      connectTimeoutS = from.connectTimeoutS;
      poolTimeoutS = from.poolTimeoutS;
      healthTimeoutS = from.healthTimeoutS;
      controlConnections = from.controlConnections;
      engineApiKeyEnv = from.engineApiKeyEnv;
      engineApiKey = from.engineApiKey;
      connector = from.connector;
      dialect = from.dialect;
      tls = from.tls;
    }

    public Builder firstTokenTimeoutS(double value) {
      firstTokenTimeoutS = value;
      return this;
    }

    public Builder firstTokenCalibrationPath(String value) {
      firstTokenCalibrationPath = value;
      return this;
    }

    public Builder decodeReadTimeoutS(double value) {
      decodeReadTimeoutS = value;
      return this;
    }

    public Builder tokenize(boolean value) {
      tokenize = value;
      return this;
    }

    public Builder tokenizeTimeoutS(double value) {
      tokenizeTimeoutS = value;
      return this;
    }

    public Builder charsPerToken(double value) {
      charsPerToken = value;
      return this;
    }

    public Builder connectTimeoutS(double value) {
      connectTimeoutS = value;
      return this;
    }

    public Builder poolTimeoutS(double value) {
      poolTimeoutS = value;
      return this;
    }

    public Builder healthTimeoutS(double value) {
      healthTimeoutS = value;
      return this;
    }

    public Builder controlConnections(int value) {
      controlConnections = value;
      return this;
    }

    public Builder engineApiKeyEnv(String value) {
      engineApiKeyEnv = value;
      return this;
    }

    public Builder engineApiKey(EngineApiKey value) {
      engineApiKey = value;
      return this;
    }

    public Builder connector(String value) {
      connector = value;
      return this;
    }

    public Builder dialect(String value) {
      dialect = value;
      return this;
    }

    public Builder tls(EngineTlsConfig value) {
      tls = value;
      return this;
    }

    public EngineConfig build() {
      return new EngineConfig(
          firstTokenTimeoutS, firstTokenCalibrationPath, decodeReadTimeoutS, tokenize,
          tokenizeTimeoutS, charsPerToken, connectTimeoutS, poolTimeoutS, healthTimeoutS,
          controlConnections, engineApiKeyEnv, engineApiKey, connector, dialect, tls);
    }
  }
}
