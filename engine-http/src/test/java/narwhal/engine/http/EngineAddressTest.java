package narwhal.engine.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class EngineAddressTest {

  @Test
  void ipv4WithPort() {
    EngineAddress address = EngineAddress.of(URI.create("http://10.0.0.7:8100"));

    assertThat(address.host()).isEqualTo("10.0.0.7");
    assertThat(address.port()).isEqualTo(8100);
    assertThat(address.hostHeader()).isEqualTo("10.0.0.7:8100");
    assertThat(address.socketAddress().isUnresolved()).as("IP literals need no lookup").isFalse();
    assertThat(address.target("/v1/completions")).isEqualTo("/v1/completions");
  }

  @Test
  void ipv6Literal_keepsBracketsOnlyInTheHostHeader() {
    EngineAddress address = EngineAddress.of(URI.create("http://[::1]:8200"));

    assertThat(address.host()).isEqualTo("::1");
    assertThat(address.hostHeader()).isEqualTo("[::1]:8200");
    assertThat(address.socketAddress().isUnresolved()).isFalse();
  }

  @Test
  void hostName_isLeftForTheResolver_andPortDefaultsTo80() {
    EngineAddress address = EngineAddress.of(URI.create("http://decode-0.engines"));

    assertThat(address.port()).isEqualTo(80);
    assertThat(address.socketAddress().isUnresolved()).isTrue();
    assertThat(address.authority()).isEqualTo("http://decode-0.engines:80");
  }

  @Test
  void basePath_prefixesRequestPaths() {
    EngineAddress address = EngineAddress.of(URI.create("http://10.0.0.7:8100/engine/"));

    assertThat(address.target("/v1/completions")).isEqualTo("/engine/v1/completions");
    assertThat(address.target("health")).isEqualTo("/engine/health");
    assertThat(address.target("")).isEqualTo("/engine");
  }

  @Test
  void https_isTls_portDefaultsTo443_andPoolsApartFromPlainHttp() {
    EngineAddress tls = EngineAddress.of(URI.create("https://decode-0.engines"));
    EngineAddress plain = EngineAddress.of(URI.create("http://decode-0.engines:443"));

    assertThat(tls.tls()).isTrue();
    assertThat(tls.port()).isEqualTo(443);
    assertThat(tls.hostHeader()).isEqualTo("decode-0.engines:443");
    assertThat(tls.authority()).isNotEqualTo(plain.authority());
    assertThat(tls).hasToString("https://decode-0.engines:443");
    assertThat(plain.tls()).isFalse();
  }

  @Test
  void onlyHttpAndHttps_areAccepted() {
    assertThatThrownBy(() -> EngineAddress.of(URI.create("ftp://10.0.0.7:8100")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("engine base URI must be http://host:port or https://host:port: ftp://10.0.0.7:8100");
    assertThatThrownBy(() -> EngineAddress.of(URI.create("http:relative")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
