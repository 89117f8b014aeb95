package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import narwhal.config.ServingTlsConfig;
import narwhal.netty.tls.ServerTls;
import narwhal.testing.ScriptedCompletionService.Call;
import narwhal.testing.tls.LegacyClientHello;
import narwhal.testing.tls.TestCertificates;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front-end over TLS, with real handshakes on loopback: completions and SSE over HTTPS, ALPN,
 * the protocol floor, a refusal at the body limit, and a certificate reload that new connections
 * see while a stream opened before it runs to its end.
 */
class HttpsFrontEndTest extends FrontEndTestSupport {

  private static final String STREAM = "{\"model\":\"served-model\",\"prompt\":\"Say hi\",\"stream\":true}";
  private static final String PLAIN = "{\"model\":\"served-model\",\"prompt\":\"Say hi\"}";

  @TempDir Path dir;
  private final ManualScheduler reloadChecks = new ManualScheduler();
  private TestCertificates ca;
  private ServingTlsConfig files;
  private ServerTls tls;

  @Override
  HttpFrontEndOptions options() {
    try {
      ca = TestCertificates.create(dir);
      TestCertificates.Issued server = ca.server();
      files = ServingTlsConfig.of(
          Files.copy(server.certFile(), dir.resolve("served.pem")),
          Files.copy(server.keyFile(), dir.resolve("served.key"))).withReloadCheckS(1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    tls = ServerTls.start(files, reloadChecks);
    return super.options().withTls(tls.httpContext());
  }

  @AfterEach
  void stopTls() {
    tls.close();
  }

  @Override
  URI uri(String path) {
    return URI.create("https://127.0.0.1:" + frontEnd.port() + path);
  }

  private HttpClient https(SSLContext context, HttpClient.Version version) {
    return HttpClient.newBuilder().sslContext(context).version(version).connectTimeout(Duration.ofSeconds(5)).build();
  }

  private HttpRequest completion(String body) {
    return HttpRequest.newBuilder(uri("/v1/completions")).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  @Test
  void completion_overHttps_alpnOffersHttp11Only_andShowsTheServerCertificate() throws Exception {
    service.script(call -> call.stream(Events.completionFinal("hello", "stop", "null")));
    // The client would take HTTP/2; ALPN offers http/1.1 alone, so that is what it speaks.
    HttpResponse<String> response = https(ca.clientContext(), HttpClient.Version.HTTP_2)
        .send(completion(PLAIN), HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(json(response.body()).at("/choices/0/text").asText()).isEqualTo("hello");
    assertThat(response.sslSession().orElseThrow().getPeerCertificates()[0]).isEqualTo(tls.certificate());
    assertThat(response.sslSession().orElseThrow().getProtocol()).isEqualTo("TLSv1.3");
  }

  @Test
  void sseStream_overHttps() throws Exception {
    service.script(call -> call.stream(Events.completionToken("Hel"), Events.completionToken("lo"),
        Events.completionFinal("!", "stop", "null")));

    HttpResponse<String> response = https(ca.clientContext(), HttpClient.Version.HTTP_1_1)
        .send(completion(STREAM), HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
    List<String> data = response.body().lines().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
    assertThat(data).hasSize(4).last().isEqualTo("[DONE]");
    assertThat(data.subList(0, 3)).extracting(d -> json(d).at("/choices/0/text").asText())
        .containsExactly("Hel", "lo", "!");
  }

  @Test
  void tls12_isServed_tls11AndOlder_areRefused() throws Exception {
    SSLContext context = ca.clientContext();
    SSLParameters tls12 = context.getDefaultSSLParameters();
    tls12.setProtocols(new String[] {"TLSv1.2"});
    HttpResponse<String> response = HttpClient.newBuilder().sslContext(context).sslParameters(tls12).build()
        .send(HttpRequest.newBuilder(uri("/health")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.sslSession().orElseThrow().getProtocol()).isEqualTo("TLSv1.2");

    for (int version : new int[] {LegacyClientHello.TLS_1_1, LegacyClientHello.TLS_1_0}) {
      LegacyClientHello.Reply reply = LegacyClientHello.offer("127.0.0.1", frontEnd.port(), version);
      assertThat(reply.answer()).as("answer to a ClientHello offering 0x%04x", version)
          .isIn(LegacyClientHello.Answer.ALERT, LegacyClientHello.Answer.CLOSED);
      if (reply.answer() == LegacyClientHello.Answer.ALERT) {
        assertThat(reply.alertDescription()).as("alert").isIn(70, 40); // protocol_version, handshake_failure
      }
    }
    assertThat(service.calls).isEmpty();
  }

  @Test
  void plainHttpToTheTlsPort_isNotServed() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThatThrownBy(http::readResponse).isInstanceOf(IOException.class);
    }
  }

  @Test
  void aBodyOverTheLimit_gets413_overTls() throws Exception {
    HttpResponse<String> response = https(ca.clientContext(), HttpClient.Version.HTTP_1_1)
        .send(completion(" ".repeat(8192)), HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(json(response.body()).at("/error/type").asText()).isEqualTo("request_too_large");
  }

  @Test
  void reload_newConnectionsSeeTheNewCertificate_whileAStreamOpenAcrossItCompletes() throws Exception {
    service.script(call -> call.sequence(1, () -> call.sink.onStart(call.start()),
        () -> call.deliver(Events.completionToken("before"))));
    Certificate original = tls.certificate();
    CompletableFuture<HttpResponse<InputStream>> streaming = https(ca.clientContext(), HttpClient.Version.HTTP_1_1)
        .sendAsync(completion(STREAM), HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> stream = streaming.get(10, TimeUnit.SECONDS);
    BufferedReader events = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8));
    assertThat(nextData(events)).contains("\"before\"");
    Call call = service.nextCall();

    TestCertificates.Issued renewed = ca.issue("renewed", List.of("127.0.0.1"), Instant.now().minusSeconds(60),
        Instant.now().plusSeconds(3600), false);
    Files.copy(renewed.certFile(), files.certChain(), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(renewed.keyFile(), files.privateKey(), StandardCopyOption.REPLACE_EXISTING);
    reloadChecks.advance(1, TimeUnit.SECONDS);

    HttpResponse<String> fresh = https(ca.clientContext(), HttpClient.Version.HTTP_1_1)
        .send(HttpRequest.newBuilder(uri("/health")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(fresh.statusCode()).isEqualTo(200);
    assertThat(fresh.sslSession().orElseThrow().getPeerCertificates()[0]).isEqualTo(renewed.certificate());

    call.loop.execute(() -> {
      call.deliver(Events.completionToken("after"));
      call.sink.onComplete();
    });
    assertThat(nextData(events)).contains("\"after\"");
    assertThat(nextData(events)).isEqualTo("[DONE]");
    assertThat(stream.sslSession().orElseThrow().getPeerCertificates()[0]).isEqualTo(original);
    assertThat(call.handle.cancels.get()).isZero();
  }

  private static String nextData(BufferedReader events) throws IOException {
    List<String> skipped = new ArrayList<>();
    for (String line = events.readLine(); line != null; line = events.readLine()) {
      if (line.startsWith("data: ")) {
        return line.substring(6);
      }
      skipped.add(line);
    }
    throw new AssertionError("the stream ended; skipped " + skipped);
  }
}
