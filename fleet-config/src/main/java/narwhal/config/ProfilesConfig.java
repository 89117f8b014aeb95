package narwhal.config;

import java.util.Objects;

/**
 * The {@code profiles} section: where per-engine latency profiles live and how good they must be.
 *
 * @param path the profiles file
 * @param maxDecodeFitMape the largest accepted mean absolute percentage error of the decode fit
 * @param maxDecodeCvMape the largest accepted cross-validated error of the decode fit
 */
public record ProfilesConfig(String path, double maxDecodeFitMape, double maxDecodeCvMape) {

  public ProfilesConfig {
    Objects.requireNonNull(path, "path");
  }

  public static ProfilesConfig defaults() {
    return new ProfilesConfig("runs/profiles.json", 0.05, 0.13);
  }
}
