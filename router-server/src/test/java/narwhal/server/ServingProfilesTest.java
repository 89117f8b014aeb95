package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.ProfilesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading profiles at serve start: a missing file is fine, an invalid one stops the start. */
class ServingProfilesTest {

  @TempDir
  Path dir;

  private FleetConfig fleet(Path profiles) {
    FleetConfig c = FleetConfig.of("m", List.of(EngineSpec.of("p0", "http://127.0.0.1:9", EngineRole.PREFILL),
        EngineSpec.of("d0", "http://127.0.0.1:10", EngineRole.DECODE)));
    return c.withProfiles(new ProfilesConfig(profiles.toString(), 0.05, 0.13));
  }

  @Test
  void anInvalidProfilesFile_stopsTheStart_namingEveryProblem() throws Exception {
    Path bad = dir.resolve("profiles.json");
    Files.writeString(bad, "{\"schema\":\"narwhal.profiles\",\"schema_version\":2,\"engines\":[{\"iid\":\"p0\"}]}");

    assertThatThrownBy(() -> RouterServer.start(fleet(bad), "127.0.0.1", 0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid profiles file " + bad + " (6 errors):\n  $.schema_version: must be 1, got 2")
        .hasMessageContaining("$.engines[0].url: required: a non-empty string")
        .hasMessageEndingWith("fix the file, or re-run narwhal profile --fleet FILE to write it anew");
  }

  @Test
  void aMissingFile_isNoProfiles() {
    assertThat(ServingProfiles.read(fleet(dir.resolve("none.json")))).isNull();
  }

  @Test
  void generationsAreReread_everyLivenessPeriod() {
    FleetConfig c = fleet(dir.resolve("none.json"));

    assertThat(ServingProfiles.recheckEveryNanos(c)).isEqualTo(TimeUnit.SECONDS.toNanos(10));
    assertThat(ServingProfiles.recheckEveryNanos(c.withRecovery(c.recovery().withLivenessEvery(0)))).isZero();
  }
}
