package narwhal.sim;

import static java.util.Objects.requireNonNull;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProtocols;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * TLS for a simulated engine ({@code --tls-cert}, {@code --tls-key}): the engine of an {@code
 * https://} URL, as vLLM is with {@code --ssl-certfile} and {@code --ssl-keyfile}.
 *
 * @param certChain the engine's certificate chain, PEM
 * @param privateKey its key, PKCS#8 PEM
 */
public record SimTls(Path certChain, Path privateKey) {

  public SimTls {
    requireNonNull(certChain, "certChain");
    requireNonNull(privateKey, "privateKey");
  }

  /** Both files, or neither (null); one alone is a mistake worth stopping for. */
  static @Nullable SimTls of(@Nullable Path certChain, @Nullable Path privateKey) {
    if (certChain == null && privateKey == null) {
      return null;
    }
    if (certChain == null || privateKey == null) {
      throw new IllegalArgumentException("--tls-cert and --tls-key go together");
    }
    return new SimTls(certChain, privateKey);
  }

  /** The server context, read from the files now (TLS 1.3 and 1.2). */
  SslContext serverContext() {
    try {
      return SslContextBuilder.forServer(certChain.toFile(), privateKey.toFile())
          .sslProvider(SslProvider.JDK)
          .protocols(SslProtocols.TLS_v1_3, SslProtocols.TLS_v1_2)
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot serve TLS with " + certChain + " and " + privateKey + ": "
          + e.getMessage(), e);
    }
  }
}
