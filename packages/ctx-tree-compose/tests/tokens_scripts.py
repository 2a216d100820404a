"""Short texts in many scripts, written for the token-estimate tests (no value is real)."""

from __future__ import annotations

SCRIPTS: dict[str, str] = {
    "chinese": (
        "上下文存储把每次读取的完整输出保存在本地数据库里，只把预算之内的片段交给代理。"
        "清单说明哪些内容被省略了，以及取回其余部分的确切调用。"
        "如果文件在磁盘上发生了变化，旧的节点会被标记为过期，新的节点会替换它们。"
        "搜索使用全文索引，按相关性排序，并且会跳过被拒绝列表覆盖的文件。"
    ),
    "chinese_traditional": (
        "這個工具會在本機保存完整的輸出，並且只回傳預算之內的內容。"
        "當檔案被修改時，舊的區塊會被標記為過期。請先閱讀說明文件，再開始設定專案。"
    ),
    "japanese": (
        "このツールは読み取った結果をすべてローカルのデータベースに保存し、"
        "予算の範囲内の部分だけをエージェントに返します。ファイルが変更されると、"
        "古いノードは期限切れとして扱われ、新しいノードに置き換えられます。"
    ),
    "korean": (
        "이 도구는 읽은 내용을 모두 로컬 데이터베이스에 저장하고 예산 안의 부분만 "
        "에이전트에게 돌려줍니다. 파일이 바뀌면 이전 노드는 만료된 것으로 표시됩니다."
    ),
    "russian": (
        "Хранилище контекста сохраняет полный вывод каждого чтения в локальной базе данных "
        "и возвращает агенту только ту часть, которая помещается в бюджет. Манифест "
        "перечисляет, что было пропущено, и даёт точный вызов, чтобы получить остальное. "
        "Если файл изменился на диске, старые узлы помечаются как устаревшие."
    ),
    "ukrainian": (
        "Сховище зберігає повний результат кожного читання і повертає лише ту частину, "
        "що вміщується в бюджет. Якщо файл змінився, старі вузли позначаються застарілими."
    ),
    "greek": (
        "Η αποθήκη κρατά ολόκληρη την έξοδο κάθε ανάγνωσης σε μια τοπική βάση δεδομένων "
        "και επιστρέφει στον πράκτορα μόνο το κομμάτι που χωρά στον προϋπολογισμό."
    ),
    "arabic": (
        "يحفظ المخزن الناتج الكامل لكل قراءة في قاعدة بيانات محلية ويعيد إلى الوكيل "
        "الجزء الذي يتسع له الحد المسموح فقط. إذا تغير الملف تصبح العقد القديمة منتهية."
    ),
    "hebrew": (
        "המאגר שומר את הפלט המלא של כל קריאה במסד נתונים מקומי ומחזיר לסוכן רק את החלק "
        "שנכנס לתקציב. אם הקובץ השתנה, הצמתים הישנים מסומנים כלא עדכניים."
    ),
    "hindi": (
        "यह उपकरण हर पढ़ाई का पूरा परिणाम स्थानीय डेटाबेस में रखता है और एजेंट को केवल "
        "उतना हिस्सा लौटाता है जितना बजट में आता है। फ़ाइल बदलने पर पुराने नोड पुराने माने जाते हैं।"
    ),
    "thai": (
        "เครื่องมือนี้เก็บผลลัพธ์ทั้งหมดของการอ่านแต่ละครั้งไว้ในฐานข้อมูลภายในเครื่อง "
        "และส่งคืนเฉพาะส่วนที่อยู่ในงบประมาณให้กับเอเจนต์"
    ),
    "vietnamese": (
        "Công cụ này lưu toàn bộ kết quả của mỗi lần đọc vào cơ sở dữ liệu cục bộ và chỉ "
        "trả về cho tác nhân phần nằm trong ngân sách. Khi tệp thay đổi, các nút cũ hết hạn."
    ),
    "emoji": (
        "Release notes 🎉🚀 — build passed ✅, tests green 💚, coverage up 📈. "
        "Team: 👨‍👩‍👧‍👦 👍🏽 🙌 ❤️ ✨ 🇫🇷 🇯🇵 🏳️‍🌈 🧑‍💻 🐍 🦀 ☕️ 🔥💯 "
        "Weather: ☀️ 🌧️ ⛈️ 🌈 ❄️ 🌪️ — mood: 😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩"
    ),
    "english": (
        "The context store keeps the full output of every read in a local database and "
        "returns to the agent only the slice that fits its budget. The manifest lists what "
        "was left out and gives the exact call that gets the rest."
    ),
    "code": (
        "def fit_lines(text: str, budget_tokens: int) -> tuple[str, bool]:\n"
        "    if budget_tokens < 0:\n"
        '        raise ValueError(f"budget_tokens must be >= 0, got {budget_tokens}")\n'
        "    ends = [i + 1 for i, ch in enumerate(text) if ch == '\\n']\n"
        "    return text[: ends[-1]], True\n"
    ),
    "lockfile": (
        '"node_modules/js-tokens": {\n  "version": "4.0.0",\n'
        '  "resolved": "https://registry.npmjs.org/js-tokens/-/js-tokens-4.0.0.tgz",\n'
        '  "integrity": "sha512-RdJUflcE3cUzKiMqQgsCu06FPu9UdIJO0beYbPhHN4k6apgJtifcoCtT9bcxOpYBtpD2kCM6Sbzg4CausW/PKQ=="\n'
        "},\n"
        "golang.org/x/oauth2 v0.21.0 h1:WbsDJRkHmD0WA9J8MIfdsekymeohY63NujeJmk+xL/s=\n"
    ),
}
