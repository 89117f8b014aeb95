package narwhal.testing.tls;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A certificate authority made for one test, and the certificates it issues, as objects and as PEM
 * files (certificates, PKCS#8 keys) in a directory the test owns. Keys are EC P-256: quick to
 * make, and what modern TLS stacks prefer.
 *
 * <p>Every certificate is valid from a day ago for a day unless a test asks otherwise: the TLS
 * stacks judge validity by the wall clock, so these certificates are too. Two instances are two
 * unrelated CAs: a certificate of one is "signed by an unknown CA" to a client trusting the other.
 */
public final class TestCertificates {

  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

  private final Path dir;
  private final String name;
  private final KeyPair caKeys;
  private final X509Certificate caCertificate;
  private final Path caFile;

  /** A certificate and its key, and the PEM files holding them. */
  public record Issued(X509Certificate certificate, PrivateKey key, Path certFile, Path keyFile) {}

  private TestCertificates(Path dir, String name) {
    this.dir = dir;
    this.name = name;
    try {
      Files.createDirectories(dir);
      caKeys = newKeyPair();
      Instant now = Instant.now();
      X500Name subject = new X500Name("CN=" + name);
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(),
          Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(365))), subject,
          caKeys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKeys.getPublic()));
      caCertificate = sign(builder, caKeys.getPrivate());
      caFile = writePem(dir.resolve(name + "-ca.pem"), List.of(caCertificate));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make the test CA", e);
    }
  }

  /** A new CA named {@code name}, writing its files into {@code dir} (created if needed). */
  public static TestCertificates create(Path dir, String name) {
    return new TestCertificates(dir, name);
  }

  /** A new CA named "test-ca" writing into {@code dir}. */
  public static TestCertificates create(Path dir) {
    return create(dir, "test-ca");
  }

  public X509Certificate caCertificate() {
    return caCertificate;
  }

  /** The CA's certificate as a PEM file: what a client's trust store or a server's client_ca holds. */
  public Path caFile() {
    return caFile;
  }

  /** A server certificate for {@code localhost} and {@code 127.0.0.1}, valid now. */
  public Issued server() {
    return issue("server", List.of("localhost", "127.0.0.1"), Instant.now().minus(Duration.ofDays(1)),
        Instant.now().plus(Duration.ofDays(1)), false);
  }

  /** A server certificate for {@code localhost} and {@code 127.0.0.1} that expired an hour ago. */
  public Issued expiredServer() {
    return issue("expired", List.of("localhost", "127.0.0.1"), Instant.now().minus(Duration.ofDays(2)),
        Instant.now().minus(Duration.ofHours(1)), false);
  }

  /** A valid server certificate for another host only ({@code wrong-host.example}). */
  public Issued wrongHostServer() {
    return issue("wrong-host", List.of("wrong-host.example"), Instant.now().minus(Duration.ofDays(1)),
        Instant.now().plus(Duration.ofDays(1)), false);
  }

  /** A client certificate (extended key usage clientAuth) with common name {@code cn}. */
  public Issued client(String cn) {
    return issue(cn, List.of(), Instant.now().minus(Duration.ofDays(1)), Instant.now().plus(Duration.ofDays(1)), true);
  }

  /**
   * A certificate named {@code cn} for the given host names and IP literals, valid in [{@code
   * from}, {@code until}], for a server or a client; its files are {@code <cn>.pem} and {@code
   * <cn>.key} (overwritten if a test issues the same name again: a "renewed" certificate).
   */
  public Issued issue(String cn, List<String> hosts, Instant from, Instant until, boolean client) {
    try {
      KeyPair keys = newKeyPair();
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(caCertificate, serial(), Date.from(from),
          Date.from(until), new X500Name("CN=" + cn), keys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(client ? KeyPurposeId.id_kp_clientAuth : KeyPurposeId.id_kp_serverAuth));
      builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCertificate));
      if (!hosts.isEmpty()) {
        List<GeneralName> names = new ArrayList<>();
        for (String host : hosts) {
          boolean ip = host.chars().allMatch(c -> Character.isDigit(c) || c == '.') || host.contains(":");
          names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, host));
        }
        builder.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      X509Certificate certificate = sign(builder, caKeys.getPrivate());
      Path certFile = writePem(dir.resolve(cn + ".pem"), List.of(certificate));
      Path keyFile = dir.resolve(cn + ".key");
      writeKey(keyFile, keys.getPrivate());
      return new Issued(certificate, keys.getPrivate(), certFile, keyFile);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot issue a test certificate for " + cn, e);
    }
  }

  /** An SSLContext (TLS 1.2/1.3) that trusts this CA only: for the JDK's HttpClient and sockets. */
  public SSLContext clientContext() {
    return clientContext(null);
  }

  /** As {@link #clientContext()}, also presenting {@code clientCertificate} when a server asks. */
  public SSLContext clientContext(@Nullable Issued clientCertificate) {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry(name, caCertificate);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      javax.net.ssl.KeyManager[] keyManagers = null;
      if (clientCertificate != null) {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        char[] password = "test".toCharArray();
        keys.setKeyEntry("client", clientCertificate.key(), password,
            new java.security.cert.Certificate[] {clientCertificate.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        keyManagers = kmf.getKeyManagers();
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers, tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make a client SSLContext", e);
    }
  }

  /** Writes {@code certificates} as one PEM file (a chain or bundle) at {@code file}. */
  public static Path writePem(Path file, List<X509Certificate> certificates) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
        JcaPEMWriter pem = new JcaPEMWriter(out)) {
      for (X509Certificate c : certificates) {
        pem.writeObject(c);
      }
    }
    return file;
  }

  private static void writeKey(Path file, PrivateKey key) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
        JcaPEMWriter pem = new JcaPEMWriter(out)) {
      pem.writeObject(new JcaPKCS8Generator(key, null)); // PKCS#8, unencrypted: what the router reads
    }
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIALS.incrementAndGet());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }
}
