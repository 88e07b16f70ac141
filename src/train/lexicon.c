// lexicon.c — the words of the synthetic English→Persian corpus.
// Persian letters are the Persian ones (ی U+06CC, ک U+06A9), never the Arabic
// ي ك; the plural -ها is joined with ZWNJ after a letter that joins
// (کتاب‌ها) and written straight on after one that does not (ترنسفورمرها).
#include "lexicon.h"

// Nouns, by index (the bits of the verbs' and gerunds' noun masks).
enum { BOOK, LETTER, SENTENCE, WORD, STORY, POEM, SONG, MOVIE, PHOTO, LANGUAGE, LESSON, MODEL, TRANSFORMER,
       COMPUTER, CAR, HOUSE, FLOWER, APPLE, NEWSPAPER, MUSIC, N_NOUNS };
#define B(n) (1u << (n))

const lx_noun lx_nouns[] = {
    [BOOK]        = {"book", "books", "کتاب", "کتاب" ZW "ها", 0},
    [LETTER]      = {"letter", "letters", "نامه", "نامه" ZW "ها", 0},
    [SENTENCE]    = {"sentence", "sentences", "جمله", "جمله" ZW "ها", 0},
    [WORD]        = {"word", "words", "کلمه", "کلمه" ZW "ها", 0},
    [STORY]       = {"story", "stories", "داستان", "داستان" ZW "ها", 0},
    [POEM]        = {"poem", "poems", "شعر", "شعرها", 0},
    [SONG]        = {"song", "songs", "آهنگ", "آهنگ" ZW "ها", 0},
    [MOVIE]       = {"movie", "movies", "فیلم", "فیلم" ZW "ها", 0},
    [PHOTO]       = {"photo", "photos", "عکس", "عکس" ZW "ها", 0},
    [LANGUAGE]    = {"language", "languages", "زبان", "زبان" ZW "ها", 0},
    [LESSON]      = {"lesson", "lessons", "درس", "درس" ZW "ها", 0},
    [MODEL]       = {"model", "models", "مدل", "مدل" ZW "ها", 0},
    [TRANSFORMER] = {"transformer", "transformers", "ترنسفورمر", "ترنسفورمرها", 0},
    [COMPUTER]    = {"computer", "computers", "کامپیوتر", "کامپیوترها", 0},
    [CAR]         = {"car", "cars", "ماشین", "ماشین" ZW "ها", 0},
    [HOUSE]       = {"house", "houses", "خانه", "خانه" ZW "ها", 0},
    [FLOWER]      = {"flower", "flowers", "گل", "گل" ZW "ها", 0},
    [APPLE]       = {"apple", "apples", "سیب", "سیب" ZW "ها", 0},
    [NEWSPAPER]   = {"newspaper", "newspapers", "روزنامه", "روزنامه" ZW "ها", 0},
    [MUSIC]       = {"music", NULL, "موسیقی", NULL, 1},
};
const int lx_n_nouns = N_NOUNS;

//                   English          Persian            align   person en3s
const lx_subject lx_subjects[] = {
    {{"I"}, 1,               {"من"}, {0}, 1,              0, 0},
    {{"You"}, 1,             {"شما"}, {0}, 1,             4, 0},
    {{"He"}, 1,              {"او"}, {0}, 1,              2, 1},
    {{"She"}, 1,             {"او"}, {0}, 1,              2, 1},
    {{"We"}, 1,              {"ما"}, {0}, 1,              3, 0},
    {{"They"}, 1,            {"آن" ZW "ها"}, {0}, 1,      5, 0},
    {{"Ali"}, 1,             {"علی"}, {0}, 1,             2, 1},
    {{"Sara"}, 1,            {"سارا"}, {0}, 1,            2, 1},
    {{"The", "student"}, 2,  {"دانشجو"}, {1}, 1,         2, 1},
    {{"The", "students"}, 2, {"دانشجوها"}, {1}, 1,       5, 0},
    {{"The", "teacher"}, 2,  {"معلم"}, {1}, 1,           2, 1},
    {{"The", "teachers"}, 2, {"معلم" ZW "ها"}, {1}, 1,   5, 0},
    {{"My", "friend"}, 2,    {"دوست", "من"}, {1, 0}, 2,  2, 1},
    {{"My", "friends"}, 2,   {"دوستان", "من"}, {1, 0}, 2, 5, 0},
};
const int lx_n_subjects = sizeof lx_subjects / sizeof *lx_subjects;

#define TEXTS (B(BOOK) | B(LETTER) | B(STORY) | B(POEM))
const lx_verb lx_verbs[] = {
    // en, 3s, past, preverb, present stem, past stem, kind, generic, gerunds, nouns
    {"read", "reads", "read", NULL, "خوان", "خواند", LX_SIMPLE, 1, 0, TEXTS | B(SENTENCE) | B(WORD) | B(NEWSPAPER) | B(LESSON)},
    {"write", "writes", "wrote", NULL, "نویس", "نوشت", LX_SIMPLE, 1, 0, TEXTS | B(SENTENCE) | B(WORD) | B(SONG)},
    {"see", "sees", "saw", NULL, "بین", "دید", LX_SIMPLE, 1, 0, B(MOVIE) | B(PHOTO) | B(CAR) | B(HOUSE) | B(FLOWER)},
    {"buy", "buys", "bought", NULL, "خر", "خرید", LX_SIMPLE, 1, 0,
     B(BOOK) | B(CAR) | B(HOUSE) | B(COMPUTER) | B(FLOWER) | B(APPLE) | B(NEWSPAPER)},
    {"want", "wants", "wanted", NULL, "خواه", "خواست", LX_SIMPLE, 1, 0,
     B(BOOK) | B(CAR) | B(HOUSE) | B(COMPUTER) | B(APPLE) | B(FLOWER)},
    {"understand", "understands", "understood", NULL, "فهم", "فهمید", LX_SIMPLE, 0, 0,
     B(SENTENCE) | B(WORD) | B(LESSON) | B(LANGUAGE) | B(STORY) | B(POEM) | B(LETTER) | B(MODEL) | B(TRANSFORMER)},
    {"build", "builds", "built", NULL, "ساز", "ساخت", LX_SIMPLE, 1, 0, B(MODEL) | B(HOUSE) | B(COMPUTER) | B(TRANSFORMER)},
    {"learn", "learns", "learned", "یاد", "گیر", "گرفت", LX_SIMPLE, 1, 0,
     B(LANGUAGE) | B(LESSON) | B(WORD) | B(SONG) | B(POEM) | B(MUSIC)},
    {"teach", "teaches", "taught", "یاد", "ده", "داد", LX_SIMPLE, 1, 0,
     B(LANGUAGE) | B(LESSON) | B(WORD) | B(SONG) | B(POEM) | B(MUSIC)},
    {"watch", "watches", "watched", "تماشا", "کن", "کرد", LX_SIMPLE, 1, 0, B(MOVIE)},
    {"translate", "translates", "translated", "ترجمه", "کن", "کرد", LX_SIMPLE, 1, 0, TEXTS | B(SENTENCE) | B(WORD) | B(SONG)},
    {"find", "finds", "found", "پیدا", "کن", "کرد", LX_SIMPLE, 0, 0,
     B(BOOK) | B(LETTER) | B(CAR) | B(HOUSE) | B(WORD) | B(PHOTO)},
    {"enjoy", "enjoys", "enjoyed", "لذت", "بر", "برد", LX_AZ, 1, 1,
     B(MUSIC) | B(MOVIE) | B(SONG) | B(STORY) | B(POEM) | B(BOOK) | B(LESSON)},
    {"use", "uses", "used", "استفاده", "کن", "کرد", LX_AZ, 1, 0,
     B(MODEL) | B(COMPUTER) | B(TRANSFORMER) | B(CAR) | B(BOOK) | B(LANGUAGE)},
    {"like", "likes", "liked", "دوست", "دار", "داشت", LX_LIKE, 1, 1,
     B(MUSIC) | B(MOVIE) | B(SONG) | B(STORY) | B(POEM) | B(BOOK) | B(FLOWER) | B(APPLE) | B(CAR) | B(HOUSE) |
     B(LANGUAGE) | B(LESSON)},
};
const int lx_n_verbs = sizeof lx_verbs / sizeof *lx_verbs;

// Gerunds are nouns in Persian: the object follows with the (unwritten) ezafe.
const lx_gerund lx_gerunds[] = {
    {"learning", "یادگیری", B(TRANSFORMER) | B(LANGUAGE) | B(WORD) | B(SONG) | B(POEM) | B(MUSIC)},
    {"reading", "خواندن", TEXTS | B(NEWSPAPER)},
    {"writing", "نوشتن", TEXTS | B(SONG)},
    {"watching", "تماشای", B(MOVIE)},
    {"building", "ساختن", B(MODEL) | B(TRANSFORMER) | B(COMPUTER) | B(HOUSE)},
};
const int lx_n_gerunds = sizeof lx_gerunds / sizeof *lx_gerunds;

#define PRES (1 << LX_PRESENT)
#define PAST (1 << LX_PAST)
#define FUT (1 << LX_FUTURE)
const lx_adverb lx_adverbs[] = {
    {"really", "واقعاً", PRES | PAST | FUT, 0},
    {"always", "همیشه", PRES, 1},
    {"often", "اغلب", PRES, 1},
    {"sometimes", "گاهی", PRES, 1},
    {"usually", "معمولاً", PRES, 1},
    {"rarely", "به" ZW "ندرت", PRES, 1},
};
const int lx_n_adverbs = sizeof lx_adverbs / sizeof *lx_adverbs;

const lx_time lx_times[] = {
    {{"every", "day"}, 2, {"هر", "روز"}, {0, 1}, 2, PRES},
    {{"yesterday"}, 1, {"دیروز"}, {0}, 1, PAST},
    {{"today"}, 1, {"امروز"}, {0}, 1, PAST | FUT},
    {{"tomorrow"}, 1, {"فردا"}, {0}, 1, FUT},
};
const int lx_n_times = sizeof lx_times / sizeof *lx_times;

const char *const lx_end_present[6] = {"م", "ی", "د", "یم", "ید", "ند"};
const char *const lx_end_past[6] = {"م", "ی", "", "یم", "ید", "ند"};
const char *const lx_future_aux[6] = {"خواهم", "خواهی", "خواهد", "خواهیم", "خواهید", "خواهند"};
