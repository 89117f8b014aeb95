package narwhal.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the PEM files TLS is configured with: certificate chains and bundles, and unencrypted
 * PKCS#8 private keys (what Netty's JDK provider takes). The JDK does the decoding; this class
 * finds the blocks and turns every way a file can be wrong into one sentence an operator can act
 * on.
 *
 * <p>A {@link PemException}'s message names the file and the problem, never the file's content:
 * a key pasted into the wrong place must not reach a terminal or a log.
 */
public final class PemFiles {

  /** The command that turns a PKCS#1 or SEC1 key (or an encrypted PKCS#8 one) into what is read here. */
  public static final String TO_PKCS8 = "openssl pkcs8 -topk8 -nocrypt -in KEY.pem -out KEY.pkcs8.pem";

  private static final Pattern BLOCK = Pattern.compile(
      "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  private static final Pattern ANY_BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----");
  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");
  /** PEM files are small; anything larger is not what was meant (and is not read into memory). */
  private static final long MAX_BYTES = 1 << 20;

  private PemFiles() {}

  /** A problem with a PEM file; the message names the file and never quotes it. */
  public static final class PemException extends Exception {
    private static final long serialVersionUID = 1L;

    public PemException(String message) {
      super(message, null, false, false);
    }
  }

  /** Every certificate of the file, in file order (a chain: the leaf first). */
  public static List<X509Certificate> certificates(Path file) throws PemException {
    return certificates(file, read(file));
  }

  /**
   * As {@link #certificates(Path)}, from {@code text} already read from {@code file} (a reload
   * parses exactly the bytes it compared).
   */
  public static List<X509Certificate> certificates(Path file, String text) throws PemException {
    List<X509Certificate> out = new ArrayList<>();
    CertificateFactory factory = x509();
    for (Block block : blocks(file, text)) {
      if (!block.label.equals("CERTIFICATE")) {
        continue;
      }
      try {
        out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der)));
      } catch (CertificateException | ClassCastException e) {
        throw new PemException(file + ": certificate " + (out.size() + 1) + " is not a valid X.509 certificate");
      }
    }
    if (out.isEmpty()) {
      throw new PemException(file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
          + (labels(text).stream().anyMatch(l -> l.endsWith("PRIVATE KEY")) ? "; it holds a private key" : ""));
    }
    return out;
  }

  /** The file's private key: unencrypted PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}). */
  public static PrivateKey privateKey(Path file) throws PemException {
    return privateKey(file, read(file));
  }

  /** As {@link #privateKey(Path)}, from {@code text} already read from {@code file}. */
  public static PrivateKey privateKey(Path file, String text) throws PemException {
    for (Block block : blocks(file, text)) {
      switch (block.label) {
        case "PRIVATE KEY":
          return pkcs8(file, block.der);
        case "RSA PRIVATE KEY":
          throw new PemException(file + " holds a PKCS#1 RSA key (BEGIN RSA PRIVATE KEY); the router reads PKCS#8: "
              + "convert it with `" + TO_PKCS8 + "`");
        case "EC PRIVATE KEY":
          throw new PemException(file + " holds a SEC1 EC key (BEGIN EC PRIVATE KEY); the router reads PKCS#8: "
              + "convert it with `" + TO_PKCS8 + "`");
        case "ENCRYPTED PRIVATE KEY":
          throw new PemException(file + " holds an encrypted key; the router reads unencrypted PKCS#8 keys: "
              + "decrypt it with `" + TO_PKCS8 + "` (it asks for the passphrase) and protect the file by its "
              + "permissions instead");
        default:
          break;
      }
    }
    throw new PemException(file + " holds no PEM private key (-----BEGIN PRIVATE KEY-----)"
        + (labels(text).contains("CERTIFICATE") ? "; it holds a certificate" : ""));
  }

  /** True when {@code key} is the private half of {@code certificate}'s public key. */
  public static boolean matches(PrivateKey key, X509Certificate certificate) {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      case "Ed448" -> "Ed448";
      default -> null;
    };
    if (algorithm == null) {
      return true; // a key type this check cannot sign with; the TLS handshake will judge it
    }
    try {
      byte[] probe = "narwhal key check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The problem with a certificate chain and its key, or null when both read and belong together:
   * what config validation and a certificate reload both ask.
   */
  public static @Nullable String chainAndKeyProblem(Path certChain, Path privateKey) {
    try {
      requireMatch(privateKey(privateKey), certificates(certChain).get(0), certChain, privateKey);
      return null;
    } catch (PemException e) {
      return e.getMessage();
    }
  }

  /** Throws unless {@code key} (read from {@code keyFile}) belongs to {@code leaf} (from {@code chainFile}). */
  public static void requireMatch(PrivateKey key, X509Certificate leaf, Path chainFile, Path keyFile)
      throws PemException {
    if (!matches(key, leaf)) {
      throw new PemException(keyFile + " is not the key of the first certificate in " + chainFile
          + " (the chain must start with the server's own certificate)");
    }
  }

  private static PrivateKey pkcs8(Path file, byte[] der) throws PemException {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException | RuntimeException e) {
        // Not this algorithm: try the next.
      }
    }
    throw new PemException(file + " holds a PKCS#8 block that is not an RSA, EC or EdDSA private key");
  }

  private record Block(String label, byte[] der) {}

  private static List<Block> blocks(Path file, String text) throws PemException {
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      try {
        out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
      } catch (IllegalArgumentException e) {
        throw new PemException(file + ": the base64 of its " + m.group(1) + " block is damaged");
      }
    }
    if (out.isEmpty() && ANY_BEGIN.matcher(text).find()) {
      throw new PemException(file + " is not complete PEM: a -----BEGIN line has no matching -----END line "
          + "(a file still being written?)");
    }
    return out;
  }

  private static List<String> labels(String text) {
    List<String> out = new ArrayList<>();
    Matcher m = ANY_BEGIN.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** The file's text, checked to be a plausible PEM file (not a directory, not huge). */
  public static String read(Path file) throws PemException {
    try {
      if (Files.isDirectory(file)) {
        throw new PemException(file + " is a directory, not a PEM file");
      }
      if (Files.size(file) > MAX_BYTES) {
        throw new PemException(file + " is over 1 MiB: not a PEM certificate or key file");
      }
      return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      throw new PemException(file + " does not exist");
    } catch (AccessDeniedException e) {
      throw new PemException(file + " cannot be read (permission denied)");
    } catch (IOException e) {
      throw new PemException(file + " cannot be read: " + e.getClass().getSimpleName());
    }
  }

  private static CertificateFactory x509() {
    try {
      return CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
    }
  }
}
