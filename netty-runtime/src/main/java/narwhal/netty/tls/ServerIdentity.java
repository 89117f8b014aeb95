package narwhal.netty.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import narwhal.config.PemFiles;
import narwhal.config.PemFiles.PemException;

/**
 * One certificate chain and its key as the server presents them, read from the two PEM files,
 * with the digest of the files' bytes it was read from (a reload compares digests, not times).
 *
 * @param digest SHA-256 over both files' bytes, hex
 * @param chain the chain, the server's own certificate first
 * @param keyManager the JDK key manager holding exactly this chain and key
 */
record ServerIdentity(String digest, List<X509Certificate> chain, X509ExtendedKeyManager keyManager) {

  /** The files' current bytes, read once: the digest and the parse see the same content. */
  record FileContents(String certText, String keyText, String digest) {

    static FileContents read(Path certChain, Path privateKey) throws PemException {
      String cert = PemFiles.read(certChain);
      String key = PemFiles.read(privateKey);
      return new FileContents(cert, key, sha256(cert + "\u0000" + key));
    }
  }

  X509Certificate leaf() {
    return chain.get(0);
  }

  /**
   * Parses {@code files} into an identity.
   *
   * @throws PemException a file is not PEM, or the key is not the leaf certificate's
   */
  static ServerIdentity load(Path certChain, Path privateKey, FileContents files) throws PemException {
    List<X509Certificate> chain = PemFiles.certificates(certChain, files.certText());
    PrivateKey key = PemFiles.privateKey(privateKey, files.keyText());
    PemFiles.requireMatch(key, chain.get(0), certChain, privateKey);
    return new ServerIdentity(files.digest(), List.copyOf(chain), keyManager(chain, key));
  }

  private static X509ExtendedKeyManager keyManager(List<X509Certificate> chain, PrivateKey key) {
    try {
      char[] password = new char[0];
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("server", key, password, chain.toArray(X509Certificate[]::new));
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, password);
      for (KeyManager km : factory.getKeyManagers()) {
        if (km instanceof X509ExtendedKeyManager x509) {
          return x509;
        }
      }
      throw new IllegalStateException("the JDK's key manager factory made no X509ExtendedKeyManager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("the JDK refused a key it had parsed", e);
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
