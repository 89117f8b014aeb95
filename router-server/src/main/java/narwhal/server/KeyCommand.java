package narwhal.server;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.Callable;
import narwhal.config.ApiKeyHash;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code narwhal key}: makes a new client API key and prints it with the hash line the fleet
 * file's {@code tenants} section stores. The key itself is shown this once and kept nowhere.
 */
@Command(name = "key", sortOptions = false,
    description = {"Make a client API key: prints the key (give it to the client; it is shown once and stored "
        + "nowhere) and its hash line (put it in a tenant's keys, or in tenants.operator_keys)."})
final class KeyCommand implements Callable<Integer> {

  private static final char[] ID_ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  @ParentCommand
  private Narwhal narwhal;

  private KeyCommand() {}

  @Override
  public Integer call() {
    String key = newKey();
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    narwhal.out.println("key:  " + key);
    narwhal.out.println("hash: " + ApiKeyHash.of(key, salt).format());
    narwhal.out.flush();
    return 0;
  }

  /** {@code nwk_<8 id characters>_<32 random bytes, base64url>}: 256 bits the hash protects. */
  static String newKey() {
    StringBuilder id = new StringBuilder(8);
    for (int i = 0; i < 8; i++) {
      id.append(ID_ALPHABET[RANDOM.nextInt(ID_ALPHABET.length)]);
    }
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    return "nwk_" + id + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }
}
