package narwhal.config;

import java.util.Locale;

/** Which side moves the KV blocks, as {@code engine_contract.transfer_mode} pins it. */
public enum TransferMode {
  /** The consumer reads the producer's blocks (NIXL's default). */
  PULL,
  /** The producer writes into the consumer's blocks. */
  PUSH;

  /** The spelling used in the fleet file, e.g. {@code "pull"}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
