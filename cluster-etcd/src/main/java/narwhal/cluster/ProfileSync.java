package narwhal.cluster;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import narwhal.core.profile.ProfilesFileException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Latency profiles, fleet-wide: {@code narwhal profile} on a fleet with a {@code cluster} section
 * writes its document to {@code profiles}, and every replica installs what it sees there (bound to
 * its engines' generations as a profiles file is). A document in etcd wins over the profiles file.
 */
final class ProfileSync {

  private static final Logger log = LoggerFactory.getLogger(ProfileSync.class);

  private final Consumer<ProfilesDocument> install;
  private String installed = "";

  ProfileSync(Consumer<ProfilesDocument> install) {
    this.install = install;
  }

  /** The document as stored (watch or snapshot). */
  void onStored(String value) {
    if (value.equals(installed)) {
      return;
    }
    try {
      ProfilesDocument doc = ProfilesFile.parse(value);
      installed = value;
      log.info("cluster: installing {} engine profiles from etcd", doc.rows().size());
      install.accept(doc);
    } catch (ProfilesFileException e) {
      log.warn("cluster: ignoring the profiles document in etcd: {} ({} problems)", e.getMessage(), e.errors().size());
    }
  }

  /** Writes {@code doc} for every replica (the profile command's last step). */
  static CompletableFuture<Long> publish(EtcdStore store, ClusterKeys keys, ProfilesDocument doc) {
    return store.put(keys.profiles(), ProfilesFile.toJson(doc), 0);
  }
}
