package io.gpupool.replay;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A PNG line chart of unallocated GPU % against arrived workload %, our medians drawn solid over
 * the published medians drawn dashed (the paper's Fig. 9(a) layout). Plain Java2D, headless: no
 * chart library needed for two axes and a legend.
 */
final class CurveChart {
    private static final int W = 1000;
    private static final int H = 640;
    private static final int LEFT = 70;
    private static final int RIGHT = 230;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final double X_MIN = 70;
    private static final double X_MAX = 130;
    private static final double Y_MAX = 32;
    private static final Color[] OURS = {new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C),
        new Color(0x9467BD), new Color(0xFF7F0E), new Color(0x8C564B), new Color(0xE377C2), new Color(0x17BECF)};
    private static final Color[] PUBLISHED = {new Color(0x999999), new Color(0x777777), new Color(0xAA8866),
        new Color(0x66AA88), new Color(0x8888CC), new Color(0x333333)};

    private CurveChart() {
    }

    static void write(ChartData data, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);
        axes(g, data.workload());
        int legendY = TOP + 10;
        int i = 0;
        for (Map.Entry<String, double[]> e : data.published().entrySet()) {
            Color c = PUBLISHED[i++ % PUBLISHED.length];
            line(g, e.getValue(), c, new BasicStroke(1.6f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f,
                    new float[] {6f, 4f}, 0f));
            legendY = legend(g, "published " + e.getKey(), c, legendY, true);
        }
        i = 0;
        for (Map.Entry<String, double[]> e : data.ours().entrySet()) {
            Color c = OURS[i++ % OURS.length];
            line(g, e.getValue(), c, new BasicStroke(2.6f));
            legendY = legend(g, "ours " + e.getKey(), c, legendY, false);
        }
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }

    private static void axes(Graphics2D g, String workload) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("Unallocated GPU (%) vs arrived workload (%) - " + workload + ", median of seeds", LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawRect(LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
        for (int x = (int) X_MIN; x <= X_MAX; x += 10) {
            int px = px(x);
            g.setColor(new Color(0xEEEEEE));
            g.drawLine(px, TOP + 1, px, H - BOTTOM - 1);
            g.setColor(Color.BLACK);
            g.drawString(Integer.toString(x), px - 10, H - BOTTOM + 18);
        }
        for (int y = 0; y <= Y_MAX; y += 4) {
            int py = py(y);
            g.setColor(new Color(0xEEEEEE));
            g.drawLine(LEFT + 1, py, W - RIGHT - 1, py);
            g.setColor(Color.BLACK);
            g.drawString(Integer.toString(y), LEFT - 28, py + 4);
        }
        g.drawString("arrived workload (% of cluster GPUs)", LEFT + 200, H - 20);
        g.drawString("unallocated GPU %", 5, TOP - 8);
    }

    private static void line(Graphics2D g, double[] curve, Color color, BasicStroke stroke) {
        g.setColor(color);
        g.setStroke(stroke);
        int prevX = -1;
        int prevY = -1;
        for (int x = (int) X_MIN; x < curve.length && x <= X_MAX; x++) {
            if (Double.isNaN(curve[x])) {
                prevX = -1;
                continue;
            }
            int px = px(x);
            int py = py(Math.min(Y_MAX, curve[x]));
            if (prevX >= 0) {
                g.drawLine(prevX, prevY, px, py);
            }
            prevX = px;
            prevY = py;
        }
        g.setStroke(new BasicStroke(1f));
    }

    private static int legend(Graphics2D g, String label, Color c, int y, boolean dashed) {
        int x = W - RIGHT + 12;
        g.setColor(c);
        g.setStroke(dashed ? new BasicStroke(1.6f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f,
                new float[] {6f, 4f}, 0f) : new BasicStroke(2.6f));
        g.drawLine(x, y, x + 24, y);
        g.setStroke(new BasicStroke(1f));
        g.setColor(Color.BLACK);
        g.drawString(label, x + 30, y + 4);
        return y + 20;
    }

    private static int px(double x) {
        return LEFT + (int) Math.round((x - X_MIN) / (X_MAX - X_MIN) * (W - LEFT - RIGHT));
    }

    private static int py(double y) {
        return H - BOTTOM - (int) Math.round(y / Y_MAX * (H - TOP - BOTTOM));
    }
}
