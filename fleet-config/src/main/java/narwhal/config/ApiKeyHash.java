package narwhal.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One client API key as the fleet file stores it: never the key, only its id and a salted SHA-256
 * digest, written {@code nwk1$<key id>$<salt>$<digest>} (salt and digest base64url). The key a
 * client presents is {@code nwk_<key id>_<secret>}; the id finds the stored digest without trying
 * every tenant's keys, and the comparison runs in constant time.
 *
 * <p>Why SHA-256 and not a slow password hash: keys are 256-bit random secrets made by {@code
 * narwhal key}, not chosen by people, so a stolen fleet file cannot be brute-forced whatever the
 * hash costs; a fast hash keeps authentication off the request's latency.
 */
public final class ApiKeyHash {

  /** The stored form's version tag. */
  public static final String SCHEME = "nwk1";

  private static final Pattern STORED =
      Pattern.compile("nwk1\\$([A-Za-z0-9]{8,32})\\$([A-Za-z0-9_-]{16,64})\\$([A-Za-z0-9_-]{43})");
  private static final Pattern PRESENTED = Pattern.compile("nwk_([A-Za-z0-9]{8,32})_([A-Za-z0-9_-]{16,128})");

  private final String keyId;
  private final byte[] salt;
  private final byte[] digest;

  private ApiKeyHash(String keyId, byte[] salt, byte[] digest) {
    this.keyId = keyId;
    this.salt = salt.clone();
    this.digest = digest.clone();
  }

  /** The stored form of {@code key} with {@code salt}; {@code key} must be a well-formed key. */
  public static ApiKeyHash of(String key, byte[] salt) {
    String id = keyIdOf(key);
    if (id == null) {
      throw new IllegalArgumentException("not a narwhal API key (nwk_<id>_<secret>)");
    }
    return new ApiKeyHash(id, salt, digest(salt, key));
  }

  /**
   * Reads a stored line such as {@code nwk1$k3Jd9aQ2$<salt>$<digest>}.
   *
   * @throws IllegalArgumentException naming what is wrong, never echoing the value (it may be a
   *     key pasted by mistake)
   */
  public static ApiKeyHash parse(String stored) {
    Matcher m = STORED.matcher(stored);
    if (!m.matches()) {
      throw new IllegalArgumentException(stored.startsWith("nwk_")
          ? "is a key, not a key hash: store the hash line narwhal key prints, never the key"
          : "must be a key hash line 'nwk1$<id>$<salt>$<digest>' as narwhal key prints it");
    }
    Base64.Decoder b64 = Base64.getUrlDecoder();
    return new ApiKeyHash(m.group(1), b64.decode(m.group(2)), b64.decode(m.group(3)));
  }

  /** The key id of a presented key, or null when it is not shaped like a narwhal key. */
  public static @Nullable String keyIdOf(String presented) {
    Matcher m = PRESENTED.matcher(presented);
    return m.matches() ? m.group(1) : null;
  }

  public String keyId() {
    return keyId;
  }

  /** True when {@code presented} is the key this hash was made from; constant time in the digest. */
  public boolean matches(String presented) {
    return MessageDigest.isEqual(digest(salt, presented), digest);
  }

  /** The stored line. */
  public String format() {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return SCHEME + "$" + keyId + "$" + b64.encodeToString(salt) + "$" + b64.encodeToString(digest);
  }

  private static byte[] digest(byte[] salt, String key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(salt);
      return sha.digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof ApiKeyHash h && keyId.equals(h.keyId) && Arrays.equals(salt, h.salt)
        && Arrays.equals(digest, h.digest);
  }

  @Override
  public int hashCode() {
    return Objects.hash(keyId, Arrays.hashCode(digest));
  }

  /** The key id only: a digest is not secret, but nothing about a key belongs in a log line. */
  @Override
  public String toString() {
    return "ApiKeyHash{" + keyId + "}";
  }
}
