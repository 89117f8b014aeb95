package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which engine a rendezvous names: the host comparison behind SGLang mode's prefill decision. */
class BootstrapFieldsTest {

  @Test
  void loopbackSpellingsAreOneHost() {
    for (String named : new String[] {"127.0.0.1", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", "127.0.0.2"}) {
      assertThat(new BootstrapFields(named, 8998, 1).names("127.0.0.1", 8998)).as(named).isTrue();
      assertThat(new BootstrapFields("127.0.0.1", 8998, 1).names(named, 8998)).as(named).isTrue();
    }
  }

  @Test
  void anEngineBoundToAWildcardAnswersToAnyHost() {
    BootstrapFields rendezvous = new BootstrapFields("10.0.0.7", 8998, 1);
    for (String wildcard : new String[] {"", "0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"}) {
      assertThat(rendezvous.names(wildcard, 8998)).as(wildcard).isTrue();
    }
  }

  @Test
  void oneAddressSpelledTwoWaysIsOneHost() {
    assertThat(new BootstrapFields("2001:DB8:0:0::1", 8998, 1).names("[2001:db8::1]", 8998)).isTrue();
    assertThat(new BootstrapFields("Prefill-0.example", 8998, 1).names("prefill-0.example", 8998)).isTrue();
  }

  @Test
  void anotherHostOrPortIsNotThisEngine() {
    assertThat(new BootstrapFields("10.0.0.7", 8998, 1).names("10.0.0.8", 8998)).isFalse();
    assertThat(new BootstrapFields("10.0.0.7", 8998, 1).names("10.0.0.7", 8999)).isFalse();
    assertThat(new BootstrapFields("prefill-0.example", 8998, 1).names("127.0.0.1", 8998)).isFalse();
    assertThat(new BootstrapFields("::2", 8998, 1).names("::1", 8998)).isFalse();
  }
}
