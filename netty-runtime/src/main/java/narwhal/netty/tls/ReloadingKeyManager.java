package narwhal.netty.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;

/**
 * The server's key manager: presents whichever {@link ServerIdentity} was installed last, so an
 * {@code SslContext} built once serves a renewed certificate to every handshake after the swap,
 * while connections already open keep theirs (a TLS session never asks again).
 *
 * <p>A handshake asks for an alias first and the key and chain for it afterwards; a swap can fall
 * in between. Aliases therefore carry the generation they came from, and the previous generation
 * is kept, so a handshake under way finishes with the identity it chose.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {

  private record Generation(long number, ServerIdentity identity) {}

  private volatile Generation current;
  private volatile @Nullable Generation previous;

  ReloadingKeyManager(ServerIdentity first) {
    current = new Generation(1, first);
  }

  ServerIdentity identity() {
    return current.identity();
  }

  /** Serves {@code next} to every handshake that starts from now on. Called by one thread at a time. */
  void install(ServerIdentity next) {
    Generation now = current;
    previous = now;
    current = new Generation(now.number() + 1, next);
  }

  @Override
  public @Nullable String chooseEngineServerAlias(String keyType, Principal @Nullable [] issuers, SSLEngine engine) {
    Generation g = current;
    return tag(g, g.identity().keyManager().chooseEngineServerAlias(keyType, issuers, engine));
  }

  @Override
  public @Nullable String chooseServerAlias(String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
    Generation g = current;
    return tag(g, g.identity().keyManager().chooseServerAlias(keyType, issuers, socket));
  }

  @Override
  public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
    Generation g = current;
    String[] aliases = g.identity().keyManager().getServerAliases(keyType, issuers);
    if (aliases == null) {
      return null;
    }
    String[] tagged = new String[aliases.length];
    for (int i = 0; i < aliases.length; i++) {
      tagged[i] = tag(g, aliases[i]);
    }
    return tagged;
  }

  @Override
  public X509Certificate @Nullable [] getCertificateChain(String alias) {
    Generation g = generationOf(alias);
    return g == null ? null : g.identity().keyManager().getCertificateChain(untag(alias));
  }

  @Override
  public @Nullable PrivateKey getPrivateKey(String alias) {
    Generation g = generationOf(alias);
    return g == null ? null : g.identity().keyManager().getPrivateKey(untag(alias));
  }

  // A server never acts as a client: these are never asked.

  @Override
  public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
    return null;
  }

  @Override
  public @Nullable String chooseClientAlias(String[] keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
    return null;
  }

  private static @Nullable String tag(Generation g, @Nullable String alias) {
    return alias == null ? null : g.number() + ":" + alias;
  }

  private static String untag(String alias) {
    return alias.substring(alias.indexOf(':') + 1);
  }

  private @Nullable Generation generationOf(String alias) {
    int colon = alias.indexOf(':');
    if (colon <= 0) {
      return null;
    }
    long number;
    try {
      number = Long.parseLong(alias.substring(0, colon));
    } catch (NumberFormatException e) {
      return null;
    }
    Generation g = current;
    if (g.number() == number) {
      return g;
    }
    Generation p = previous;
    return p != null && p.number() == number ? p : null;
  }
}
