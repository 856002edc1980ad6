import java.io.FileInputStream;
import java.security.Security;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;

/**
 * Validates a leaf against a trust anchor with Java's PKIX validator and its revocation checker:
 * OCSP first (the responder named in the leaf's AIA), the CRL of its CRL distribution point as the
 * fallback. No URL is given: only the certificate's own extensions say where to ask.
 *
 *   java -Dcom.sun.security.enableCRLDP=true PkixCheck ca.pem leaf.pem [ocsp-url]
 *
 * An ocsp-url overrides the AIA (a test points it at a dead port to see the CRL fallback work).
 * When leaf.pem holds the leaf followed by its chain (the issuing CA), the path is all of them and
 * revocation is checked for every certificate of it, each at the URLs its own certificate names
 * (the issuing CA's status comes from OCSP under the root, or from root.crl).
 * Prints "VALID", or "INVALID <reason>: <message>" and exits 1.
 */
public final class PkixCheck {
  public static void main(String[] args) throws Exception {
    Security.setProperty("ocsp.enable", "true");
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    X509Certificate anchor = read(factory, args[0]);
    List<X509Certificate> path = readAll(factory, args[1]);

    CertPathValidator validator = CertPathValidator.getInstance("PKIX");
    PKIXRevocationChecker checker = (PKIXRevocationChecker) validator.getRevocationChecker();
    // Defaults kept on purpose: OCSP preferred, CRL fallback (no NO_FALLBACK, no SOFT_FAIL).
    if (path.size() == 1) checker.setOptions(EnumSet.of(PKIXRevocationChecker.Option.ONLY_END_ENTITY));
    if (args.length > 2) checker.setOcspResponder(java.net.URI.create(args[2]));

    PKIXParameters parameters = new PKIXParameters(Collections.singleton(new TrustAnchor(anchor, null)));
    parameters.setRevocationEnabled(true);
    parameters.addCertPathChecker(checker);
    CertPath certPath = factory.generateCertPath(path);
    try {
      validator.validate(certPath, parameters);
      System.out.println("VALID");
    } catch (CertPathValidatorException e) {
      System.out.println("INVALID " + e.getReason() + ": " + e.getMessage());
      System.exit(1);
    }
  }

  private static List<X509Certificate> readAll(CertificateFactory factory, String file) throws Exception {
    try (FileInputStream in = new FileInputStream(file)) {
      return factory.generateCertificates(in).stream().map(c -> (X509Certificate) c).toList();
    }
  }

  private static X509Certificate read(CertificateFactory factory, String file) throws Exception {
    try (FileInputStream in = new FileInputStream(file)) {
      return (X509Certificate) factory.generateCertificate(in);
    }
  }
}
