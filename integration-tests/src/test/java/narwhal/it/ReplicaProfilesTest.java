package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import narwhal.cluster.Cluster;
import narwhal.core.profile.ProfileSource;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Profiles in etcd: replicas that start with no profiles file price nothing; one profiles document
 * written to the fleet's etcd (what {@code narwhal profile} does on a fleet with a cluster section)
 * is installed by every replica, bound to the engines' generations as a file's rows are.
 */
class ReplicaProfilesTest {

  @Test
  void oneProfilesDocumentInEtcd_isInstalledByEveryReplica(@TempDir Path dir) throws Exception {
    Path noFile = dir.resolve("absent-profiles.json");
    try (Replicas replicas = Replicas.start(2, 1, 1,
        c -> c.withProfiles(new narwhal.config.ProfilesConfig(noFile.toString(), c.profiles().maxDecodeFitMape(),
            c.profiles().maxDecodeCvMape())))) {
      until("both replicas are ready", () -> ReplicaVerdictsTest.ready(replicas));
      assertThat(replicas.router(0).router().profiles().status("d0").source()).isEqualTo(ProfileSource.NONE);

      Path measured = dir.resolve("measured.json");
      replicas.fleet.configWithExactProfiles(measured);
      ProfilesDocument doc = ProfilesFile.read(measured);
      Cluster.publishProfiles(replicas.config(0).cluster(), doc);

      until("every replica prices with the shared profiles", Duration.ofSeconds(10), () -> {
        for (int i = 0; i < replicas.size(); i++) {
          for (String iid : new String[] {"p0", "d0"}) {
            if (replicas.router(i).router().profiles().status(iid).source() != ProfileSource.OWN) {
              return false;
            }
          }
        }
        return true;
      });
      assertThat(Files.exists(noFile)).as("nothing was written where the profiles file would be").isFalse();
      assertThat(ReplicaVerdictsTest.State.of(replicas.client(1)).engine("d0").path("profile").asText())
          .isEqualTo("own");
    }
  }
}
