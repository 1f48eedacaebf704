package io.gpupool.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The system's headless Chromium driven through its chromedriver (Debian packages chromium and
 * chromium-driver; .ci/run installs them), one per test class. Without them the class is skipped,
 * saying so ({@link Available}; {@code -Dgpupool.test.chromium} and {@code -Dgpupool.test.chromedriver}
 * point elsewhere). With {@code -Dgpupool.console.screenshots=DIR} the tests also save
 * screenshots of the views they walk into DIR (docs/console.md's pictures).
 */
public final class ConsoleBrowser implements AutoCloseable {
    static final Path CHROMIUM = Path.of(System.getProperty("gpupool.test.chromium", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Path.of(System.getProperty("gpupool.test.chromedriver", "/usr/bin/chromedriver"));
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * How often a wait looks again. Selenium's default is 500 ms, so every wait that was not already
     * over at its first look cost up to half a second of nothing; a view draws in tens of milliseconds.
     * Each look is a round trip through chromedriver to the browser, so looking much more often costs
     * CPU the tests share with the service: at 25 ms the two console classes took 14 % more CPU
     * (browser and driver included) than at 500 ms on a loaded machine; 100 ms is a quarter of that.
     */
    private static final Duration POLL = Duration.ofMillis(100);

    private final ChromeDriver driver;
    private final Path profile;
    private final String base;

    public ConsoleBrowser(String base, int width, int height) {
        try {
            profile = Files.createTempDirectory("gpupool-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // Without the background-networking flags, Chromium on a closed network stalls on its own calls home.
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=" + width + "," + height, "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(WAIT);
        this.base = base;
    }

    /** Skips the class, with a message, where Chromium or chromedriver is missing. */
    public static final class Available implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
                return ConditionEvaluationResult.enabled("Chromium and chromedriver are installed");
            }
            return ConditionEvaluationResult.disabled("SKIPPED: browser tests need " + CHROMIUM + " and " + CHROMEDRIVER
                    + " (Debian packages chromium and chromium-driver; .ci/run installs them)");
        }
    }

    public WebDriver driver() {
        return driver;
    }

    /** Opens the console (through the service's root, which redirects) and signs in with a token. */
    public void signIn(String token) {
        driver.get(base + "/");
        driver.executeScript("sessionStorage.clear()");
        driver.navigate().refresh();
        WebElement input = waitFor(By.id("token"));
        input.sendKeys(token);
        driver.findElement(By.cssSelector("#signin button[type=submit]")).click();
        waitFor(By.id("identity"));
    }

    /** Goes to a view (#/id?query) and waits until it has drawn (no box still loading). */
    public void open(String hash) {
        String view = "view-" + hash.split("\\?", 2)[0];
        // a blank page first: a view's id alone would also match the view drawn before this one
        driver.get("about:blank");
        driver.get(base + "/console/#/" + hash);
        until(d -> d.findElements(By.id(view)).isEmpty() ? null : true);
        settle();
    }

    /** Waits until nothing in the page is loading any more. */
    public void settle() {
        until(d -> d.findElements(By.cssSelector("main h1")).size() > 0
                && d.findElements(By.cssSelector("[aria-busy=true]")).isEmpty());
    }

    public WebElement waitFor(By by) {
        return until(d -> d.findElements(by).stream().filter(WebElement::isDisplayed).findFirst().orElse(null));
    }

    public <T> T until(ExpectedCondition<T> condition) {
        return until(WAIT, condition);
    }

    public <T> T until(Duration timeout, ExpectedCondition<T> condition) {
        // views redraw sections when their data arrives: an element found a moment ago may be gone
        return new WebDriverWait(driver, timeout, POLL).ignoring(StaleElementReferenceException.class).until(condition);
    }

    public String text(By by) {
        return until(d -> d.findElements(by).stream().filter(WebElement::isDisplayed).findFirst().map(WebElement::getText).orElse(null));
    }

    public String mainText() {
        return driver.findElement(By.tagName("main")).getText();
    }

    @SuppressWarnings("unchecked")
    public <T> T script(String js, Object... args) {
        return (T) ((JavascriptExecutor) driver).executeScript(js, args);
    }

    public List<WebElement> all(By by) {
        return driver.findElements(by);
    }

    /** Saves a screenshot as NAME.png when -Dgpupool.console.screenshots names a folder. */
    public void screenshot(String name) {
        String dir = System.getProperty("gpupool.console.screenshots");
        if (dir == null || dir.isBlank()) {
            return;
        }
        try {
            Files.createDirectories(Path.of(dir));
            Files.write(Path.of(dir, name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temporary profile left behind is harmless
            }
        }
    }
}
