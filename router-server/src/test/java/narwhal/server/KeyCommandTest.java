package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import narwhal.config.ApiKeyHash;
import org.junit.jupiter.api.Test;

/** {@code narwhal key}: a fresh key each time and a hash line that verifies it and only it. */
class KeyCommandTest {

  private List<String> run() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int status = Narwhal.run(new String[] {"key"}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(status).isZero();
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void printsAKey_andAHashLineThatVerifiesIt() {
    List<String> lines = run();

    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).matches("key:  nwk_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}");
    assertThat(lines.get(1)).startsWith("hash: nwk1$");
    String key = lines.get(0).substring("key:  ".length());
    ApiKeyHash hash = ApiKeyHash.parse(lines.get(1).substring("hash: ".length()));
    assertThat(hash.matches(key)).isTrue();
    assertThat(hash.keyId()).isEqualTo(ApiKeyHash.keyIdOf(key));
    assertThat(lines.get(1)).doesNotContain(key.substring(13));
  }

  @Test
  void everyRun_makesANewKeyWithANewSalt() {
    List<String> a = run();
    List<String> b = run();

    assertThat(a.get(0)).isNotEqualTo(b.get(0));
    assertThat(ApiKeyHash.parse(b.get(1).substring(6)).matches(a.get(0).substring(6))).isFalse();
  }
}
