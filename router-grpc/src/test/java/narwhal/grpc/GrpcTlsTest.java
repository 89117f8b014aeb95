package narwhal.grpc;

import static narwhal.grpc.StreamCompletionTest.completion;
import static narwhal.testing.ScriptedCompletionService.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.config.ClientAuthMode;
import narwhal.config.ServingTlsConfig;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.netty.tls.ServerTls;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import narwhal.testing.tls.TestCertificates;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** gRPC over TLS with grpc-java's own client: ALPN h2, the CA's certificate, client certificates. */
class GrpcTlsTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  @TempDir Path dir;
  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final ScriptedCompletionService service = new ScriptedCompletionService();
  private final List<AutoCloseable> started = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private GrpcFrontEnd serve(ServingTlsConfig config) {
    ServerTls tls = ServerTls.start(config, new ManualScheduler());
    started.add(tls);
    GrpcFrontEnd frontEnd = GrpcFrontEnd.start(new GrpcFrontEndOptions("127.0.0.1", 0, 1 << 20, 1 << 20,
        Duration.ofMillis(20)).withTls(GrpcFrontEnd.tlsContext(tls)), service, boss, workers);
    started.add(frontEnd);
    return frontEnd;
  }

  private ManagedChannel channel(GrpcFrontEnd frontEnd, SslContext client) {
    return cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", frontEnd.port()).sslContext(client).build());
  }

  @Test
  void streamAndUnary_overTls_withTheCa() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();
    GrpcFrontEnd frontEnd = serve(ServingTlsConfig.of(server.certFile(), server.keyFile()));
    service.script(call -> call.stream(token("a"), token("b")));
    ManagedChannel channel = channel(frontEnd, GrpcSslContexts.forClient().trustManager(ca.caCertificate()).build());

    List<StreamEvent> events = new ArrayList<>();
    RouterGrpc.newBlockingStub(channel).streamCompletion(completion("hi")).forEachRemaining(events::add);

    assertThat(events).hasSize(3);
    assertThat(events.get(0).getToken().getText()).isEqualTo("a");
    assertThat(events.get(2).hasDone()).isTrue();
    service.script(call -> call.stream(token("x"), token("y")));
    assertThat(RouterGrpc.newBlockingStub(channel).complete(completion("hi")).getText()).isEqualTo("xy");
  }

  @Test
  void aClientThatDoesNotTrustTheCa_isRefused() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();
    GrpcFrontEnd frontEnd = serve(ServingTlsConfig.of(server.certFile(), server.keyFile()));
    TestCertificates other = TestCertificates.create(dir.resolve("other"), "other-ca");
    ManagedChannel channel = channel(frontEnd, GrpcSslContexts.forClient().trustManager(other.caCertificate()).build());

    assertThatThrownBy(() -> RouterGrpc.newBlockingStub(channel).complete(completion("hi")))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(service.calls).isEmpty();
  }

  @Test
  void clientCertificatesRequired_withOneServed_withoutNone() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();
    GrpcFrontEnd frontEnd = serve(ServingTlsConfig.of(server.certFile(), server.keyFile())
        .withClientCa(ca.caFile(), ClientAuthMode.REQUIRE));
    TestCertificates.Issued alice = ca.client("alice");
    service.script(call -> call.stream(token("ok")));

    SslContextBuilder withCert = GrpcSslContexts.forClient().trustManager(ca.caCertificate())
        .keyManager(alice.key(), alice.certificate());
    assertThat(RouterGrpc.newBlockingStub(channel(frontEnd, withCert.build())).complete(completion("hi")).getText())
        .isEqualTo("ok");

    ManagedChannel anonymous = channel(frontEnd, GrpcSslContexts.forClient().trustManager(ca.caCertificate()).build());
    assertThatThrownBy(() -> RouterGrpc.newBlockingStub(anonymous).complete(completion("hi")))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(service.calls).hasSize(1);
  }
}
