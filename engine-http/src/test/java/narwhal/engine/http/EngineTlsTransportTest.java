package narwhal.engine.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineTlsConfig;
import narwhal.netty.EventLoopScheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TlsProblem;
import narwhal.spi.TransportFailure;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * https:// engines over real handshakes: trust from ca_bundle, SNI, pooling, client certificates,
 * and each certificate problem reported as what it is.
 */
class EngineTlsTransportTest {

  private static final String BODY = "{\"ok\":true}";
  private static EventLoopGroup group;
  private static EventLoopScheduler loop;

  @TempDir Path dir;
  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  static void startGroup() {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    loop = EventLoopScheduler.of(group.next());
  }

  @AfterAll
  static void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  private TestEngineServer engine(TestCertificates.Issued certificate, SslContextBuilder... custom) throws Exception {
    SslContextBuilder builder = custom.length > 0 ? custom[0]
        : SslContextBuilder.forServer(certificate.key(), certificate.certificate());
    TestEngineServer server = new TestEngineServer(TestEngineServer.json(BODY), builder.build());
    resources.add(server);
    return server;
  }

  private NettyEngineTransport transport(EngineTlsConfig config) {
    NettyEngineTransport transport = new NettyEngineTransport(group, NioSocketChannel.class, EngineTls.of(config));
    resources.add(transport);
    return transport;
  }

  private static RecordingHandler get(NettyEngineTransport transport, URI engine) {
    RecordingHandler handler = new RecordingHandler(loop::inLoop);
    transport.open(engine, new EngineHttpRequest("GET", "/health", Map.of(), new byte[0]),
        ExchangeOptions.defaults(), loop, handler);
    handler.awaitEnd();
    return handler;
  }

  private static TransportFailure failure(RecordingHandler handler) {
    assertThat(handler.failure).as("the exchange failed; calls: %s", handler.calls).isNotNull();
    return handler.failure;
  }

  @Test
  void httpsEngine_trustedThroughCaBundle_servesAndPoolsItsConnection() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestEngineServer server = engine(ca.server());
    NettyEngineTransport transport = transport(EngineTlsConfig.defaults().withCaBundle(ca.caFile()));

    assertThat(get(transport, server.uri()).calls).containsExactly("head 200 application/json", "body " + BODY, "end");
    assertThat(get(transport, server.uri()).calls).contains("end");

    assertThat(server.connectionsAccepted()).as("the second exchange reused the TLS connection").isEqualTo(1);
    assertThat(transport.openConnections()).isEqualTo(1);
  }

  @Test
  void sni_isTheUrlsHostName() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestEngineServer server = engine(ca.server());

    get(transport(EngineTlsConfig.defaults().withCaBundle(ca.caFile())), server.localhostUri());

    assertThat(server.serverNames()).containsExactly("localhost");
  }

  @Test
  void systemTrustStore_doesNotTrustATestCa() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestEngineServer server = engine(ca.server());

    TransportFailure f = failure(get(transport(EngineTlsConfig.defaults()), server.uri()));

    assertThat(f.kind()).isEqualTo(TransportFailure.Kind.CONNECT_FAILED);
    assertThat(TlsProblem.of(f)).isEqualTo(TlsProblem.UNKNOWN_CA);
    assertThat(f.getMessage()).startsWith("TLS handshake with https://127.0.0.1:" + server.port()
        + " failed: certificate signed by an unknown CA");
    assertThat(f.clientDetail()).as("what a client may read: no address")
        .isEqualTo("failed the TLS handshake: certificate signed by an unknown CA");
  }

  @Test
  void expiredCertificate_isReportedAsExpired() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestEngineServer server = engine(ca.expiredServer());

    TransportFailure f = failure(get(transport(EngineTlsConfig.defaults().withCaBundle(ca.caFile())), server.uri()));

    assertThat(f.kind()).isEqualTo(TransportFailure.Kind.CONNECT_FAILED);
    assertThat(TlsProblem.of(f)).isEqualTo(TlsProblem.EXPIRED);
    assertThat(f.getMessage()).contains("failed: certificate expired (").contains("renew the engine's certificate");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void wrongHost_isReported_unlessHostNamesAreNotVerified() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestEngineServer server = engine(ca.wrongHostServer());
    EngineTlsConfig trusted = EngineTlsConfig.defaults().withCaBundle(ca.caFile());

    TransportFailure f = failure(get(transport(trusted), server.uri()));
    assertThat(TlsProblem.of(f)).isEqualTo(TlsProblem.HOST_MISMATCH);
    assertThat(f.getMessage()).contains("certificate does not match host");

    NettyEngineTransport lax = transport(trusted.withVerifyHostname(false));
    assertThat(EngineTls.of(trusted.withVerifyHostname(false)).verifiesHostnames()).isFalse();
    assertThat(get(lax, server.uri()).calls).contains("end");
  }

  @Test
  void engineRequiringAClientCertificate_acceptsTheRoutersOne_andRefusesNone() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued serverCert = ca.server();
    SslContextBuilder requiring = SslContextBuilder.forServer(serverCert.key(), serverCert.certificate())
        .trustManager(ca.caCertificate()).clientAuth(ClientAuth.REQUIRE);
    TestEngineServer server = engine(serverCert, requiring);
    TestCertificates.Issued router = ca.client("router");
    EngineTlsConfig trusted = EngineTlsConfig.defaults().withCaBundle(ca.caFile());

    assertThat(get(transport(trusted.withClientCertificate(router.certFile(), router.keyFile())), server.uri()).calls)
        .contains("end");

    TransportFailure f = failure(get(transport(trusted), server.uri()));
    assertThat(f.kind()).isEqualTo(TransportFailure.Kind.CONNECT_FAILED);
    assertThat(TlsProblem.of(f)).isEqualTo(TlsProblem.CLIENT_CERTIFICATE_REFUSED);
  }

  @Test
  void plainHttpEngineBehindAnHttpsUrl_isNotTls() throws Exception {
    TestEngineServer plain = new TestEngineServer(TestEngineServer.json(BODY));
    resources.add(plain);

    TransportFailure f = failure(get(transport(EngineTlsConfig.defaults()),
        URI.create("https://127.0.0.1:" + plain.port())));

    assertThat(TlsProblem.of(f)).isEqualTo(TlsProblem.NOT_TLS);
    assertThat(f.getMessage()).endsWith("the engine does not speak TLS; it answered in plain text: should its URL be "
        + "http://?");
  }

  @Test
  void unreadableCaBundle_isRefusedAtConstruction() {
    assertThatThrownBy(() -> EngineTls.of(EngineTlsConfig.defaults().withCaBundle(dir.resolve("none.pem"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("engine.tls: " + dir.resolve("none.pem") + " does not exist");
    assertThat(UTF_8).isNotNull();
  }
}
