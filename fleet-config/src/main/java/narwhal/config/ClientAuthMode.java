package narwhal.config;

/** Whether the front-ends ask TLS clients for a certificate ({@code serving.tls.client_auth}). */
public enum ClientAuthMode {
  /** No client certificate is asked for: {@code client_ca} is not set. */
  NONE("none"),
  /** A client certificate is asked for and verified when sent; a client without one is served too. */
  OPTIONAL("optional"),
  /** A handshake without a client certificate signed by {@code client_ca} is refused. */
  REQUIRE("require");

  private final String configName;

  ClientAuthMode(String configName) {
    this.configName = configName;
  }

  /** The spelling in the fleet file. */
  public String configName() {
    return configName;
  }
}
