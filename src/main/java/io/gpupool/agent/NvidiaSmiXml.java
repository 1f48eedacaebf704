package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code nvidia-smi -q -x}. The element names used here are the same in DTD v10 to v13 where
 * they exist; where a driver renamed one (clocks_throttle_reasons → clocks_event_reasons,
 * power_readings → gpu_power_readings, power_draw → instant_power_draw) both are read.
 *
 * <p>Real outputs carry {@code <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">}, so a
 * DOCTYPE cannot be refused; instead nothing external is ever loaded (no DTD, no external entity,
 * no XInclude) and entity expansion is bounded by the JDK's secure processing limits, so XXE and
 * entity bombs are impossible.
 */
public final class NvidiaSmiXml {
    public static final String SOURCE = "nvidia-smi-xml";

    private NvidiaSmiXml() {
    }

    public static Capture parse(String xml, CardCatalog catalog) {
        Document doc = document(xml);
        if (doc.getDoctype() != null && doc.getDoctype().getInternalSubset() != null
                && !doc.getDoctype().getInternalSubset().isBlank()) {
            // nvidia-smi names its DTD and declares nothing itself; declarations are an attack or not its output.
            throw new ReportFormatException("nvidia-smi XML: the DOCTYPE declares entities or elements of its own,"
                    + " which nvidia-smi output never does");
        }
        Element root = doc.getDocumentElement();
        if (!"nvidia_smi_log".equals(root.getTagName())) {
            throw new ReportFormatException("nvidia-smi XML: the root element is <" + root.getTagName()
                    + ">, expected <nvidia_smi_log>");
        }
        List<Gpu> gpus = new ArrayList<>();
        int i = 0;
        for (Element gpu : children(root, "gpu")) {
            gpus.add(gpu(gpu, i++, catalog));
        }
        return new Capture(SOURCE, Readings.text(text(root, "driver_version")), Readings.text(text(root, "cuda_version")), gpus);
    }

    private static Gpu gpu(Element e, int position, CardCatalog catalog) {
        String at = "gpu[" + position + "]";
        String product = Readings.text(text(e, "product_name"));
        String busId = Readings.text(e.getAttribute("id"));
        Element pci = child(e, "pci");
        if (pci != null && Readings.text(text(pci, "pci_bus_id")) != null) {
            busId = Readings.text(text(pci, "pci_bus_id"));
        }
        Element fb = child(e, "fb_memory_usage");
        Long memory = fb == null ? null : Readings.whole(at + ".fb_memory_usage.total", text(fb, "total"), "MiB");
        Long used = fb == null ? null : Readings.whole(at + ".fb_memory_usage.used", text(fb, "used"), "MiB");
        Element mig = child(e, "mig_mode");
        Boolean migEnabled = mig == null ? null : Readings.enabled(at + ".mig_mode.current_mig", text(mig, "current_mig"));
        List<MigInstance> instances = new ArrayList<>();
        Element migDevices = child(e, "mig_devices");
        if (migDevices != null) {
            int k = 0;
            for (Element md : children(migDevices, "mig_device")) {
                String mat = at + ".mig_devices[" + k++ + "]";
                Element mfb = child(md, "fb_memory_usage");
                Long mmem = mfb == null ? null : Readings.whole(mat + ".fb_memory_usage.total", text(mfb, "total"), "MiB");
                Long mused = mfb == null ? null : Readings.whole(mat + ".fb_memory_usage.used", text(mfb, "used"), "MiB");
                Long gi = Readings.whole(mat + ".gpu_instance_id", text(md, "gpu_instance_id"), "");
                instances.add(new MigInstance(gi == null ? null : gi.intValue(), null, mmem, null,
                        Activity.of(null, null, null, mused)));
            }
        }
        Element util = child(e, "utilization");
        Double gpuUtil = util == null ? null : Readings.percent(at + ".utilization.gpu_util", text(util, "gpu_util"));
        return new Gpu(position, Readings.text(text(e, "uuid")), busId, product,
                catalog.resolve(product).canonicalName(), memory, migEnabled, instances, List.of(), health(e, at),
                Activity.of(null, null, gpuUtil, used));
    }

    private static Health health(Element e, String at) {
        Long corrected = null;
        Long uncorrected = null;
        Element ecc = child(e, "ecc_errors");
        Element vol = ecc == null ? null : child(ecc, "volatile");
        if (vol != null) {
            for (Element c : children(vol, null)) {
                String name = c.getTagName();
                if (name.equals("single_bit") || name.equals("double_bit")) {
                    // DTDs before v11 group counts by error kind, each with its own total.
                    Long total = Readings.whole(at + ".ecc_errors.volatile." + name + ".total", text(c, "total"), "");
                    if (name.equals("single_bit")) {
                        corrected = Readings.sum(corrected, total);
                    } else {
                        uncorrected = Readings.sum(uncorrected, total);
                    }
                } else if (name.contains("uncorrectable")) {
                    uncorrected = Readings.sum(uncorrected, Readings.whole(at + ".ecc_errors.volatile." + name, c.getTextContent(), ""));
                } else if (name.contains("correctable")) {
                    corrected = Readings.sum(corrected, Readings.whole(at + ".ecc_errors.volatile." + name, c.getTextContent(), ""));
                }
            }
        }
        Long retired = null;
        Element pages = child(e, "retired_pages");
        if (pages != null) {
            for (Element group : children(pages, null)) {
                Element count = child(group, "retired_count");
                if (count != null) {
                    retired = Readings.sum(retired, Readings.whole(at + ".retired_pages." + group.getTagName() + ".retired_count",
                            count.getTextContent(), ""));
                }
            }
        }
        Long remapped = null;
        Element rows = child(e, "remapped_rows");
        if (rows != null) {
            remapped = Readings.sum(Readings.whole(at + ".remapped_rows.remapped_row_corr", text(rows, "remapped_row_corr"), ""),
                    Readings.whole(at + ".remapped_rows.remapped_row_unc", text(rows, "remapped_row_unc"), ""));
        }
        List<String> throttle = new ArrayList<>();
        for (String group : List.of("clocks_event_reasons", "clocks_throttle_reasons")) {
            Element reasons = child(e, group);
            if (reasons != null) {
                for (Element r : children(reasons, null)) {
                    if ("Active".equalsIgnoreCase(r.getTextContent().trim())) {
                        throttle.add(r.getTagName().replaceFirst("^clocks_(event|throttle)_reason_", ""));
                    }
                }
            }
        }
        Element temp = child(e, "temperature");
        Double temperature = temp == null ? null : Readings.number(at + ".temperature.gpu_temp", text(temp, "gpu_temp"), "C");
        Double power = null;
        for (String group : List.of("gpu_power_readings", "power_readings")) {
            Element readings = child(e, group);
            for (String field : List.of("power_draw", "instant_power_draw", "average_power_draw")) {
                if (power == null && readings != null) {
                    power = Readings.number(at + "." + group + "." + field, text(readings, field), "W");
                }
            }
        }
        return new Health(null, corrected, uncorrected, retired, remapped, throttle, temperature, power);
    }

    private static Document document(String xml) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            f.setNamespaceAware(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            // An entity that would need loading resolves to nothing rather than to a file or URL.
            b.setEntityResolver((publicId, systemId) -> new org.xml.sax.InputSource(new java.io.StringReader("")));
            return b.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        } catch (SAXException e) {
            throw new ReportFormatException("nvidia-smi XML is not well-formed: " + e.getMessage(), e);
        } catch (ParserConfigurationException | IOException e) {
            throw new ReportFormatException("nvidia-smi XML cannot be read: " + e.getMessage(), e);
        }
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element el && el.getTagName().equals(name)) {
                return el;
            }
        }
        return null;
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element el && (name == null || el.getTagName().equals(name))) {
                found.add(el);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        Element c = child(parent, name);
        return c == null ? null : c.getTextContent();
    }
}
