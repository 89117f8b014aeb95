package narwhal.bench.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouterJvmOptionsTest {

  @Test
  void withoutTheFlag_theRepositorysJvmOptionsFileIsUsed_commentsSkipped(@TempDir Path repo) throws Exception {
    Files.createDirectories(repo.resolve("bin"));
    Files.writeString(repo.resolve("bin/jvm.options"), "# why these options\n  # indented comment\n\n"
        + "-XX:+UseSerialGC   -Xms64m\n-Xmx512m\n");
    RouterJvmOptions o = RouterJvmOptions.choose(null, repo);
    assertThat(o.options()).isEqualTo("-XX:+UseSerialGC -Xms64m -Xmx512m");
    assertThat(o.source()).isEqualTo("bin/jvm.options");
    assertThat(o.describe()).isEqualTo("`-XX:+UseSerialGC -Xms64m -Xmx512m` (from bin/jvm.options)");
  }

  @Test
  void theFlag_winsOverTheFile(@TempDir Path repo) throws Exception {
    Files.createDirectories(repo.resolve("bin"));
    Files.writeString(repo.resolve("bin/jvm.options"), "-Xmx512m\n");
    RouterJvmOptions o = RouterJvmOptions.choose(" -Xms1g -Xmx1g ", repo);
    assertThat(o.options()).isEqualTo("-Xms1g -Xmx1g");
    assertThat(o.source()).isEqualTo("--router-java-opts");
    assertThat(RouterJvmOptions.choose("", repo).options()).as("an empty flag means no options").isEmpty();
  }

  @Test
  void noFile_meansNoOptions(@TempDir Path repo) {
    RouterJvmOptions o = RouterJvmOptions.choose(null, repo);
    assertThat(o.options()).isEmpty();
    assertThat(o.source()).contains("missing");
    assertThat(o.describe()).startsWith("`(none)`");
  }
}
